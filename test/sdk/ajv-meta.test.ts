import test from 'ava';
import fc from 'fast-check';
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import { metaValidatorFile, metaValidatorSource } from '../../scripts/build-validators.ts';
import { AJV_OPTIONS, configureAjv, DRAFT_07 } from '../../src/sdk/ajv-config.ts';
import { checkSchema, createAjv } from '../../src/sdk/schema.ts';

test('the meta-schema validator built at install is what ajv generates for the current settings', async (t) => {
  t.true(
    (await readFile(metaValidatorFile, 'utf8')) === metaValidatorSource(),
    `${metaValidatorFile} is stale; run: node scripts/build-validators.ts`,
  );
});

const KEYWORDS = [
  ...['type', 'properties', 'required', 'items', 'minLength', 'maxLength', 'pattern', 'enum', 'anyOf'],
  ...['allOf', 'not', 'additionalProperties', 'format', '$ref', '$id', 'const', 'minimum', 'minItems'],
  ...['uniqueItems', 'definitions', 'dependencies', 'if', 'then', 'propertyNames', 'default', 'example'],
];
const schemas = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('string', 'object', 'null', 'integer', 'strin', 'array', '#', '['),
    fc.integer({ min: -2, max: 3 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    tie('schema'),
  ),
  schema: fc.dictionary(fc.constantFrom(...KEYWORDS), tie('value'), { maxKeys: 4, noNullPrototype: true }),
})).schema;

test('a schema passes or fails the meta-schema check as with ajv alone, with the same error', (t) => {
  const plain = configureAjv(new Ajv(AJV_OPTIONS));
  const ward = createAjv();
  fc.assert(
    fc.property(schemas, (schema) => {
      const expected = plain.validate(DRAFT_07, schema);
      const actual = ward.validateSchema(schema);
      return actual === expected && JSON.stringify(plain.errors) === JSON.stringify(ward.errors);
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

test('a body schema that breaks the meta-schema does not compile, with ajv message', (t) => {
  t.throws(() => createAjv().compile({ type: 'object', required: 'name' }), {
    message: 'schema is invalid: data/required must be array',
  });
});

test("the start's meta-schema check, which needs no ajv, refuses what ajv refuses, in ajv's words", (t) => {
  const plain = configureAjv(new Ajv(AJV_OPTIONS));
  fc.assert(
    fc.property(schemas, (schema) => {
      const expected = plain.validate(DRAFT_07, schema) ? null : `schema is invalid: ${plain.errorsText()}`;
      let actual: string | null = null;
      try {
        checkSchema(schema);
      } catch (error) {
        actual = (error as Error).message;
      }
      return actual === expected;
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

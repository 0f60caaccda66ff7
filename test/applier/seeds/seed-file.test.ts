import test from 'ava';
import { Ajv } from 'ajv';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { checkSeedFiles, SEED_FILE_SCHEMA } from '../../../src/applier/seeds/seed-file.ts';
import type { SeedRecord } from '../../../src/applier/seeds/seed-file.ts';
import { orderSeeds } from '../../../src/applier/seeds/seed-order.ts';

const json = (document: unknown): string => JSON.stringify(document, null, 2);

/** Problems of seed files of module `demo`, as `file path: message` lines. */
async function problemsOf(...documents: Array<unknown>): Promise<string[]> {
  const files = documents.map((document, index) => ({
    file: `seeds/${index + 1}.json`,
    text: typeof document === 'string' ? document : json(document),
  }));
  const result = await checkSeedFiles('demo', files);
  if (!result.ok)
    return result.problems.map((problem) => `${problem.file} ${problem.path}: ${problem.message}`);
  const ordered = orderSeeds('demo', result.records);
  return ordered.ok
    ? []
    : ordered.problems.map((problem) => `${problem.file} ${problem.path}: ${problem.message}`);
}

const status = (xmlId: string, extra: object = {}) => ({
  xml_id: xmlId,
  table: 'demo_status',
  values: { code: xmlId },
  ...extra,
});

test('the schema compiles under ajv strict mode', (t) => {
  t.notThrows(() =>
    new Ajv({ strict: true, allErrors: true, allowUnionTypes: true }).compile(SEED_FILE_SCHEMA),
  );
});

test('a valid file yields its records in file order, noupdate defaulting to false', async (t) => {
  const result = await checkSeedFiles('demo', [
    {
      file: 'a.json',
      text: json({
        records: [
          {
            xml_id: 'booked',
            table: 'demo_status',
            values: { code: 'booked', rank: 1, active: true, note: null },
          },
          { xml_id: 'x-1', table: 'demo_thing', values: { status_id: { $ref: 'booked' } }, noupdate: true },
        ],
      }),
    },
  ]);
  t.deepEqual(result, {
    ok: true,
    records: [
      {
        file: 'a.json',
        index: 0,
        xmlId: 'booked',
        table: 'demo_status',
        values: { code: 'booked', rank: 1, active: true, note: null },
        noupdate: false,
      },
      {
        file: 'a.json',
        index: 1,
        xmlId: 'x-1',
        table: 'demo_thing',
        values: { status_id: { $ref: 'booked' } },
        noupdate: true,
      },
    ],
  });
});

test('importing the seed step does not load ajv: commands that apply no seeds do not pay for it', async (t) => {
  const seed = fileURLToPath(new URL('../../../src/applier/seeds/seed.ts', import.meta.url));
  const script = `
    await import(${JSON.stringify(seed)});
    const { createRequire } = await import('node:module');
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/ajv/'));
    console.log(loaded.length);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  t.is(stdout.trim(), '0');
});

test('no seed files is no records', async (t) => {
  t.deepEqual(await checkSeedFiles('demo', []), { ok: true, records: [] });
});

test('malformed JSON names the file, line and column', async (t) => {
  t.deepEqual(await problemsOf('{\n  "records": [,]\n}'), [
    "seeds/1.json /: is not valid JSON: Unexpected token ',' at line 2, column 15",
  ]);
});

test('schema errors name the file, the JSON path and what is wrong', async (t) => {
  t.deepEqual(await problemsOf({}), ['seeds/1.json /: missing required field "records"']);
  t.deepEqual(
    await problemsOf({
      records: [
        { xml_id: 'ok', table: 'demo_status', values: { code: 'a' }, colour: 'red' },
        { table: 'demo_status', values: { code: 'a' } },
        { xml_id: 'demo.dotted', table: 'demo_status', values: { code: 'a' } },
        { xml_id: 'Upper', table: 'Demo Status', values: { code: 'a' } },
        { xml_id: 'empty', table: 'demo_status', values: {} },
        {
          xml_id: 'bad_values',
          table: 'demo_status',
          values: { list: [1], object: { id: 1 }, 'Bad Column': 1 },
        },
        { xml_id: 'bad_ref', table: 'demo_status', values: { status_id: { $ref: 'Other.x' } } },
        { xml_id: 'bad_flag', table: 'demo_status', values: { code: 'a' }, noupdate: 'yes' },
      ],
    }),
    [
      'seeds/1.json /records/0/colour: unknown field; allowed fields are xml_id, table, values, noupdate',
      'seeds/1.json /records/1: missing required field "xml_id"',
      'seeds/1.json /records/2/xml_id: "demo.dotted" is not a valid xml_id: use lowercase letters, digits, _ and -, without dots',
      'seeds/1.json /records/3/xml_id: "Upper" is not a valid xml_id: use lowercase letters, digits, _ and -, without dots',
      'seeds/1.json /records/3/table: "Demo Status" is not a valid table name: use lowercase letters, digits and _, at most 63 characters',
      'seeds/1.json /records/4/values: must set at least one column',
      'seeds/1.json /records/5/values/Bad Column: "Bad Column" is not a valid column name: use lowercase letters, digits and _, at most 63 characters',
      'seeds/1.json /records/5/values/list: must be a string, a number, true, false, null or {"$ref": "<xml_id>"}',
      'seeds/1.json /records/5/values/object: must be a string, a number, true, false, null or {"$ref": "<xml_id>"}',
      'seeds/1.json /records/6/values/status_id/$ref: "Other.x" is not a reference: give the xml_id of a record of this module, or <module>.<xml_id> for a record of another module',
      'seeds/1.json /records/7/noupdate: must be a boolean',
    ],
  );
});

test('a module seeds only its own tables', async (t) => {
  t.deepEqual(await problemsOf({ records: [status('a'), { ...status('b'), table: 'patients_patient' }] }), [
    'seeds/1.json /records/1/table: "patients_patient" is not a table of module demo: a module seeds only its own tables, named demo_*',
  ]);
  t.deepEqual(await problemsOf({ records: [{ ...status('a'), table: 'demonstration' }] }), [
    'seeds/1.json /records/0/table: "demonstration" is not a table of module demo: a module seeds only its own tables, named demo_*',
  ]);
});

test('an xml_id defined twice in a module is an error, in one file or across files', async (t) => {
  t.deepEqual(
    await problemsOf({ records: [status('a'), status('b'), status('a')] }, { records: [status('b')] }),
    [
      'seeds/1.json /records/2/xml_id: "a" is already defined at /records/0; xml_ids are unique within a module',
      'seeds/2.json /records/0/xml_id: "b" is already defined at seeds/1.json /records/1; xml_ids are unique within a module',
    ],
  );
});

test('a reference to a record the module does not seed is an error; other modules are checked later', async (t) => {
  t.deepEqual(
    await problemsOf({
      records: [
        status('a'),
        { xml_id: 't', table: 'demo_thing', values: { a: { $ref: 'a' }, b: { $ref: 'demo.nope' } } },
        { xml_id: 'u', table: 'demo_thing', values: { p: { $ref: 'patients.anyone' } } },
      ],
    }),
    ['seeds/1.json /records/1/values/b/$ref: "demo.nope" is not defined in the seed files of module demo'],
  );
});

test('records that reference each other in a circle are an error', async (t) => {
  const ref = (xmlId: string, target: string) => ({
    xml_id: xmlId,
    table: 'demo_thing',
    values: { parent_id: { $ref: target } },
  });
  t.deepEqual(
    await problemsOf({ records: [status('ok'), ref('a', 'b'), ref('b', 'c'), ref('c', 'demo.a')] }),
    [
      'seeds/1.json /records/1: records reference each other in a circle (a -> b -> c -> a); seed records are written one after another, so break the circle',
    ],
  );
  t.deepEqual(await problemsOf({ records: [ref('self', 'self')] }), [
    'seeds/1.json /records/0: records reference each other in a circle (self -> self); seed records are written one after another, so break the circle',
  ]);
});

test('records are ordered in waves after the records they reference, file order kept within a wave', async (t) => {
  const record = (xmlId: string, refs: string[]): SeedRecord => ({
    file: 'f.json',
    index: 0,
    xmlId,
    table: 'demo_thing',
    values: Object.fromEntries(refs.map((ref, index) => [`c${index}`, { $ref: ref }])),
    noupdate: false,
  });
  const result = orderSeeds('demo', [
    record('child', ['parent', 'patients.p']),
    record('parent', ['root']),
    record('root', []),
    record('other_root', ['patients.q']),
    record('grandchild', ['child', 'root']),
  ]);
  t.true(result.ok);
  if (result.ok)
    t.deepEqual(
      result.waves.map((wave) => wave.map((item) => item.xmlId)),
      [['root', 'other_root'], ['parent'], ['child'], ['grandchild']],
    );
});

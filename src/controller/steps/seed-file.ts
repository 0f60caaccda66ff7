/**
 * Seed files (`<module>/seeds/*.json`, format in docs/seeds.md) as text in, checked records out:
 * JSON syntax, the JSON Schema, then the rules a schema cannot say (a module seeds only its own
 * tables, xml_ids are unique within the module, local references exist; seed-order.ts adds that
 * they form no circle).
 * Pure: no fs, no database. ajv is imported on first use so that CLI commands that never apply
 * seeds do not pay for loading its compiler.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { describeJsonError } from '../json-error.ts';
import { schemaErrorProblem } from '../manifest-messages.ts';

/** A column value: a JSON scalar, or a reference to another seed record, resolved to its primary key. */
export type SeedValue = string | number | boolean | null | { $ref: string };

export interface SeedRecord {
  file: string;
  /** Position in its file, for messages: `/records/<index>`. */
  index: number;
  xmlId: string;
  table: string;
  values: Record<string, SeedValue>;
  noupdate: boolean;
}

export interface SeedFile {
  file: string;
  text: string;
}

/** Something wrong with a seed file: the file, the JSON path inside it and what is wrong. */
export interface SeedProblem {
  file: string;
  path: string;
  message: string;
}

export type SeedCheck = { ok: true; records: SeedRecord[] } | { ok: false; problems: SeedProblem[] };

interface SeedDocument {
  records: Array<{ xml_id: string; table: string; values: Record<string, SeedValue>; noupdate: boolean }>;
}

const IDENTIFIER = '^[a-z_][a-z0-9_]{0,62}$';

export const SEED_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'SeedFile',
  type: 'object',
  additionalProperties: false,
  required: ['records'],
  properties: {
    records: { type: 'array', items: { $ref: '#/definitions/record' } },
  },
  definitions: {
    record: {
      type: 'object',
      additionalProperties: false,
      required: ['xml_id', 'table', 'values'],
      properties: {
        xml_id: { title: 'XmlId', type: 'string', pattern: '^[a-z0-9_-]+$' },
        table: { title: 'TableName', type: 'string', pattern: IDENTIFIER },
        values: {
          type: 'object',
          minProperties: 1,
          propertyNames: { title: 'ColumnName', type: 'string', pattern: IDENTIFIER },
          additionalProperties: { $ref: '#/definitions/value' },
        },
        noupdate: { type: 'boolean', default: false },
      },
    },
    value: {
      title: 'Value',
      type: ['string', 'number', 'boolean', 'null', 'object'],
      additionalProperties: false,
      required: ['$ref'],
      properties: {
        $ref: { title: 'Reference', type: 'string', pattern: '^([a-z][a-z0-9_]{0,62}\\.)?[a-z0-9_-]+$' },
      },
    },
  },
} as const;

let validator: Promise<ValidateFunction<SeedDocument>> | undefined;

function compiled(): Promise<ValidateFunction<SeedDocument>> {
  validator ??= import('ajv').then(({ Ajv }) =>
    new Ajv({
      allErrors: true,
      useDefaults: true,
      verbose: true,
      allowUnionTypes: true,
    }).compile<SeedDocument>(SEED_FILE_SCHEMA),
  );
  return validator;
}

/** Splits `<module>.<xml_id>`; a bare xml_id belongs to `module`. */
export function parseRef(ref: string, module: string): { module: string; xmlId: string } {
  const dot = ref.indexOf('.');
  return dot === -1 ? { module, xmlId: ref } : { module: ref.slice(0, dot), xmlId: ref.slice(dot + 1) };
}

export const isRef = (value: SeedValue): value is { $ref: string } =>
  value !== null && typeof value === 'object';

/** Checks the seed files of `module`, given in the order they are applied. */
export async function checkSeedFiles(module: string, files: readonly SeedFile[]): Promise<SeedCheck> {
  const problems: SeedProblem[] = [];
  const records: SeedRecord[] = [];
  const validate = files.length === 0 ? null : await compiled();
  for (const { file, text } of files) {
    let document: unknown;
    try {
      // Editors on Windows may save a byte-order mark, which JSON.parse rejects.
      document = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (error) {
      problems.push({ file, path: '/', message: describeJsonError(text, error as Error) });
      continue;
    }
    if (!validate!(document)) {
      problems.push(...schemaProblems(file, validate!.errors ?? []));
      continue;
    }
    document.records.forEach((record, index) => {
      const { xml_id: xmlId, table, values, noupdate } = record;
      if (!table.startsWith(`${module}_`)) {
        problems.push({
          file,
          path: `/records/${index}/table`,
          message: `"${table}" is not a table of module ${module}: a module seeds only its own tables, named ${module}_*`,
        });
      }
      records.push({ file, index, xmlId, table, values, noupdate });
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  problems.push(...crossRecordProblems(module, records));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, records };
}

/** Duplicate xml_ids and local references to records the module does not seed, in one pass each. */
function crossRecordProblems(module: string, records: readonly SeedRecord[]): SeedProblem[] {
  const problems: SeedProblem[] = [];
  const first = new Map<string, SeedRecord>();
  const referring: SeedRecord[] = [];
  for (const record of records) {
    const earlier = first.get(record.xmlId);
    if (earlier === undefined) first.set(record.xmlId, record);
    else {
      const where = earlier.file === record.file ? '' : `${earlier.file} `;
      problems.push({
        file: record.file,
        path: `/records/${record.index}/xml_id`,
        message: `"${record.xmlId}" is already defined at ${where}/records/${earlier.index}; xml_ids are unique within a module`,
      });
    }
    for (const column in record.values) {
      if (isRef(record.values[column]!)) {
        referring.push(record);
        break;
      }
    }
  }
  for (const record of referring) {
    for (const [column, value] of Object.entries(record.values)) {
      if (!isRef(value)) continue;
      const target = parseRef(value.$ref, module);
      if (target.module === module && !first.has(target.xmlId)) {
        problems.push({
          file: record.file,
          path: `/records/${record.index}/values/${column}/$ref`,
          message: `"${value.$ref}" is not defined in the seed files of module ${module}`,
        });
      }
    }
  }
  return problems;
}

/** Messages for pattern failures, keyed by the title of the schema definition that failed. */
const patternMessages: Record<string, string> = {
  XmlId: 'is not a valid xml_id: use lowercase letters, digits, _ and -, without dots',
  TableName: 'is not a valid table name: use lowercase letters, digits and _, at most 63 characters',
  ColumnName: 'is not a valid column name: use lowercase letters, digits and _, at most 63 characters',
  Reference:
    'is not a reference: give the xml_id of a record of this module, or <module>.<xml_id> for a record of another module',
};

const VALUE_MESSAGE = 'must be a string, a number, true, false, null or {"$ref": "<xml_id>"}';

function schemaProblems(file: string, errors: readonly ErrorObject[]): SeedProblem[] {
  const seen = new Set<string>();
  const problems: SeedProblem[] = [];
  for (const error of errors) {
    // A bad column name also fails the propertyNames wrapper, with a vaguer message.
    if (error.keyword === 'propertyNames') continue;
    const problem = { file, ...schemaProblem(error) };
    const key = `${problem.path}\n${problem.message}`;
    if (!seen.has(key)) problems.push(problem);
    seen.add(key);
  }
  return problems;
}

function schemaProblem(error: ErrorObject): { path: string; message: string } {
  const title = (error.parentSchema as { title?: string } | undefined)?.title;
  // An object that is not a plain {"$ref"} fails several keywords; one message says it all.
  if (title === 'Value') return { path: error.instancePath, message: VALUE_MESSAGE };
  if (error.keyword === 'minProperties')
    return { path: error.instancePath, message: 'must set at least one column' };
  const message = title === undefined ? undefined : patternMessages[title];
  if (error.keyword === 'pattern' && message !== undefined) {
    const path =
      error.propertyName === undefined
        ? error.instancePath
        : `${error.instancePath}/${error.propertyName.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    return { path, message: `${JSON.stringify(error.propertyName ?? error.data)} ${message}` };
  }
  return schemaErrorProblem(error);
}

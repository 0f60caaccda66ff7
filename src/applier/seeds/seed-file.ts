/**
 * Seed files (`<module>/seeds/*.json`, format in docs/seeds.md) as text in, checked records out:
 * JSON syntax, the JSON Schema, then the rules a schema cannot say (a module seeds only its own
 * tables, xml_ids are unique within the module, local references exist; seed-order.ts adds that
 * they form no circle).
 * Pure: no fs, no database. A file that conforms passes a hand-written check of the schema's rules
 * (conformingRecords); ajv, imported on first need, only runs on a file that does not, to say why.
 * So applying valid seeds never loads its compiler, and a 100,000-record module is not held up by a
 * generic validator.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { describeJsonError } from '../../errors/json-error.ts';
import { schemaErrorProblem } from '../../manifests/schema-messages.ts';

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

const definitions = SEED_FILE_SCHEMA.definitions;
// The schema's own patterns, with the flag ajv compiles them with, so both checks agree.
const XML_ID = new RegExp(definitions.record.properties.xml_id.pattern, 'u');
const NAME = new RegExp(IDENTIFIER, 'u');
const REFERENCE = new RegExp(definitions.value.properties.$ref.pattern, 'u');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * SEED_FILE_SCHEMA written out by hand, for the common case of a file that conforms: appends the
 * document's records to `records` (noupdate defaulting to false, as ajv's useDefaults does) and
 * returns true, or returns false as soon as anything is off, leaving ajv to find and word every
 * problem. It must never accept what the schema rejects; rejecting more only costs time.
 */
function conformingRecords(file: string, document: unknown, records: SeedRecord[]): boolean {
  if (!isObject(document)) return false;
  for (const key in document) if (key !== 'records') return false;
  const list = document.records;
  if (!Array.isArray(list)) return false;
  let checkedTable: string | undefined;
  for (let index = 0; index < list.length; index++) {
    const record: unknown = list[index];
    if (!isObject(record)) return false;
    for (const key in record)
      if (key !== 'xml_id' && key !== 'table' && key !== 'values' && key !== 'noupdate') return false;
    const { xml_id: xmlId, table, values, noupdate } = record;
    if (typeof xmlId !== 'string' || !XML_ID.test(xmlId)) return false;
    if (typeof table !== 'string') return false;
    // Records of a file mostly share their table: its name is tested once per run of them.
    if (table !== checkedTable) {
      if (!NAME.test(table)) return false;
      checkedTable = table;
    }
    if (noupdate !== undefined && typeof noupdate !== 'boolean') return false;
    if (!conformingValues(values)) return false;
    records.push({ file, index, xmlId, table, values, noupdate: noupdate ?? false });
  }
  return true;
}

function conformingValues(values: unknown): values is Record<string, SeedValue> {
  if (!isObject(values)) return false;
  let columns = 0;
  for (const column in values) {
    columns++;
    if (!NAME.test(column)) return false;
    const value = values[column];
    switch (typeof value) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        // ajv's strictNumbers: JSON.parse turns 1e999 into Infinity, which the schema refuses.
        if (Number.isFinite(value)) continue;
        return false;
      case 'object': {
        if (value === null) continue;
        if (!isObject(value)) return false;
        for (const key in value) if (key !== '$ref') return false;
        const ref = value.$ref;
        if (typeof ref !== 'string' || !REFERENCE.test(ref)) return false;
        continue;
      }
      default:
        return false;
    }
  }
  return columns > 0;
}

/** Checks the seed files of `module`, given in the order they are applied. */
export async function checkSeedFiles(module: string, files: readonly SeedFile[]): Promise<SeedCheck> {
  const problems: SeedProblem[] = [];
  const records: SeedRecord[] = [];
  const prefix = `${module}_`;
  for (const { file, text } of files) {
    let document: unknown;
    try {
      // Editors on Windows may save a byte-order mark, which JSON.parse rejects.
      document = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (error) {
      problems.push({ file, path: '/', message: describeJsonError(text, error as Error) });
      continue;
    }
    const start = records.length;
    if (!conformingRecords(file, document, records)) {
      records.length = start;
      const validate = await compiled();
      if (!validate(document)) {
        problems.push(...schemaProblems(file, validate.errors ?? []));
        continue;
      }
      // Only reached if the hand-written check is stricter than the schema: ajv has the last word.
      document.records.forEach(({ xml_id: xmlId, table, values, noupdate }, index) =>
        records.push({ file, index, xmlId, table, values, noupdate }),
      );
    }
    for (let at = start; at < records.length; at++) {
      const { table, index } = records[at]!;
      if (!table.startsWith(prefix)) {
        problems.push({
          file,
          path: `/records/${index}/table`,
          message: `"${table}" is not a table of module ${module}: a module seeds only its own tables, named ${module}_*`,
        });
      }
    }
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

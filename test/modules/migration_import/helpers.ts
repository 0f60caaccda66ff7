import { Buffer } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type {
  ByteSource,
  ImportItem,
  ImportRecordItem,
  ImportWarning,
  SourceItem,
} from '../../../modules/migration_import/lib/index.ts';
import appointmentsApi from '../../../modules/appointments/api.ts';
import documentsApi from '../../../modules/documents/api.ts';
import { importRules } from '../../../modules/migration_import/lib/index.ts';
import patientsApi from '../../../modules/patients/api.ts';
import { fixturesDir } from '../../../scripts/generate-import-fixtures.ts';
import { silentLogger } from '../../../src/logger.ts';
import { sdk } from '../../../src/sdk/runtime.ts';

export const fixture = (path: string): ByteSource => createReadStream(join(fixturesDir, path));

const apiContext = (module: string) => ({ module, logger: silentLogger, storageDir: fixturesDir, sdk });

/** The clinic modules' rules, from their real APIs, as a run validates against them by default. */
export const rules = importRules({
  patients: patientsApi(apiContext('patients')),
  appointments: appointmentsApi(apiContext('appointments')),
  documents: documentsApi(apiContext('documents')),
});

/** Bytes of `parts`, one chunk each; strings are UTF-8. */
export async function* bytes(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
}

/** `text` cut into chunks of the given sizes (the last size repeats), to cross every boundary. */
export async function* chunks(
  text: string | Uint8Array,
  sizes: readonly number[],
): AsyncGenerator<Uint8Array> {
  const all = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let at = 0;
  for (let index = 0; at < all.length; index++) {
    const size = Math.max(1, sizes[Math.min(index, sizes.length - 1)] ?? 1);
    yield all.subarray(at, at + size);
    at += size;
  }
}

export async function* encoded(text: AsyncIterable<string>): AsyncGenerator<Uint8Array> {
  for await (const chunk of text) yield Buffer.from(chunk, 'utf8');
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

export const warningsOf = (items: ReadonlyArray<SourceItem | ImportItem>): ImportWarning[] =>
  items.flatMap((item) => (item.kind === 'warning' ? [item.warning] : []));

export const recordsOf = (items: readonly ImportItem[]): ImportRecordItem[] =>
  items.flatMap((item) => (item.kind === 'warning' ? [] : [item]));

/** Heap in use after a full collection, in bytes. */
export function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

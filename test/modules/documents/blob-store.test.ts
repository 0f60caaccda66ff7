/**
 * The content-addressed store on its own: where a file goes, that identical content is stored
 * once, and that a refused or failed write (too large, wrong checksum, broken source) leaves
 * nothing behind.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import test from 'ava';
import { ApiError } from '../../../src/errors/api-error.ts';
import { blobPath, openBlob, putBlob } from '../../../modules/documents/lib/blob-store.ts';
import { sdk } from '../../../src/sdk/runtime.ts';
import { scratchDir } from '../../helpers/cli.ts';

/** Every byte value, in 1000-byte chunks so that chunks do not line up with anything. */
const ALL_BYTES = Buffer.from(Array.from({ length: 256 * 40 }, (_, i) => (i * 7) % 256));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const chunked = (bytes: Buffer, size = 1000) =>
  Readable.from(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
      bytes.subarray(i * size, (i + 1) * size),
    ),
  );

/** Every file under `dir`, relative to it. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

test('a file is stored at documents/<first two hex digits>/<sha256>, its bytes intact', async (t) => {
  const storage = await scratchDir();
  const hash = sha256(ALL_BYTES);
  t.deepEqual(await putBlob(sdk, storage, chunked(ALL_BYTES), { maxBytes: ALL_BYTES.length }), {
    sha256: hash,
    size: ALL_BYTES.length,
    created: true,
  });
  t.is(blobPath(storage, hash), path.join(storage, 'documents', hash.slice(0, 2), hash));
  t.deepEqual(await files(storage), [path.join('documents', hash.slice(0, 2), hash)]);
  t.deepEqual(await readFile(blobPath(storage, hash)), ALL_BYTES);
  const opened = await openBlob(storage, hash);
  t.is(opened?.size, ALL_BYTES.length);
  const chunks: Buffer[] = [];
  for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
  t.deepEqual(Buffer.concat(chunks), ALL_BYTES);
});

test('the same content twice is stored once: the second put says created: false', async (t) => {
  const storage = await scratchDir();
  const first = await putBlob(sdk, storage, chunked(ALL_BYTES), { maxBytes: 1e6 });
  const second = await putBlob(sdk, storage, chunked(ALL_BYTES, 333), { maxBytes: 1e6 });
  t.deepEqual(second, { ...first, created: false });
  t.is((await files(storage)).length, 1);
});

test('an empty file is a file like any other', async (t) => {
  const storage = await scratchDir();
  const empty = await putBlob(sdk, storage, Readable.from([]), { maxBytes: 10 });
  t.deepEqual(empty, { sha256: sha256(Buffer.alloc(0)), size: 0, created: true });
});

test('one byte over maxBytes is 413 and leaves no file; exactly maxBytes is stored', async (t) => {
  const storage = await scratchDir();
  const error = await t.throwsAsync(
    putBlob(sdk, storage, chunked(ALL_BYTES), { maxBytes: ALL_BYTES.length - 1 }),
    {
      instanceOf: ApiError,
    },
  );
  t.is(error?.status, 413);
  t.is(error?.message, `the file is larger than the limit of ${ALL_BYTES.length - 1} bytes`);
  t.deepEqual(await files(storage), []);
  await putBlob(sdk, storage, chunked(ALL_BYTES), { maxBytes: ALL_BYTES.length });
  t.is((await files(storage)).length, 1);
});

test('a checksum that does not match is 422 and leaves no file; a matching one (any case) is stored', async (t) => {
  const storage = await scratchDir();
  const wrong = sha256(Buffer.from('something else'));
  const error = await t.throwsAsync(
    putBlob(sdk, storage, chunked(ALL_BYTES), { maxBytes: 1e6, expectedSha256: wrong }),
    {
      instanceOf: ApiError,
    },
  );
  t.is(error?.status, 422);
  t.is(error?.code, 'checksum_mismatch');
  t.is(error?.message, `the file's SHA-256 is ${sha256(ALL_BYTES)}, not the expected ${wrong}`);
  t.deepEqual(await files(storage), []);
  const malformed = await t.throwsAsync(
    putBlob(sdk, storage, chunked(ALL_BYTES), { maxBytes: 1e6, expectedSha256: '../x' }),
    {
      instanceOf: ApiError,
    },
  );
  t.is(malformed?.code, 'invalid_checksum');
  const stored = await putBlob(sdk, storage, chunked(ALL_BYTES), {
    maxBytes: 1e6,
    expectedSha256: sha256(ALL_BYTES).toUpperCase(),
  });
  t.is(stored.sha256, sha256(ALL_BYTES));
});

test('a source that fails midway (a client hanging up) leaves no file', async (t) => {
  const storage = await scratchDir();
  async function* broken() {
    yield ALL_BYTES.subarray(0, 5000);
    throw new Error('aborted');
  }
  await t.throwsAsync(putBlob(sdk, storage, broken(), { maxBytes: 1e6 }), { message: 'aborted' });
  t.deepEqual(await files(storage), []);
});

test('only a real SHA-256 names a path: anything else is refused, never joined to a path', async (t) => {
  const storage = await scratchDir();
  for (const name of ['../../etc/passwd', 'A'.repeat(64), 'ab', `${'a'.repeat(64)}/..`])
    t.throws(() => blobPath(storage, name), { instanceOf: TypeError }, name);
  await t.throwsAsync(openBlob(storage, '../../etc/passwd'), { instanceOf: TypeError });
  t.is(await openBlob(storage, 'a'.repeat(64)), null);
});

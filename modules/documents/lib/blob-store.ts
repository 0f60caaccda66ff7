/**
 * Content-addressed file storage for documents (and for migration_import's uploads): a file lives
 * at `<storageDir>/documents/<sha256[0..2]>/<sha256>`, so its path comes only from its bytes, never
 * from anything a client names, and identical content is stored once. A file appears at its path
 * complete or not at all: it is written to `documents/tmp/` on the same filesystem while being
 * hashed, fsynced, then renamed into place. Files stay when rows go (an uninstall keeps them), so a
 * restored backup finds its content again. A temporary file a crashed backend left behind is
 * removed by `removeAbandonedUploads` (see `sdk.files`).
 */
import { createHash } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ApiError, PartialFile, PartialKind, WardSdk } from '../../../src/sdk/index.ts';

const SHA256 = /^[0-9a-f]{64}$/;
const ROOT = 'documents';
const TMP = 'tmp';
const UPLOAD: PartialKind = { prefix: '', suffix: '.part' };

export interface PutBlobOptions {
  /** More bytes than this and the upload is refused with 413; nothing is kept. */
  maxBytes: number;
  /** Lower-case hex the content must hash to, else 422 and nothing is kept. */
  expectedSha256?: string;
}

export interface StoredBlob {
  sha256: string;
  size: number;
  /** False when the same content was already stored: nothing new was written. */
  created: boolean;
}

export interface OpenedBlob {
  stream: ReadStream;
  size: number;
}

/** Where the file with this SHA-256 lives. Throws unless `sha256` is 64 lower-case hex digits. */
export function blobPath(storageDir: string, sha256: string): string {
  if (!SHA256.test(sha256)) throw new TypeError(`not a lower-case hex SHA-256: ${JSON.stringify(sha256)}`);
  return path.join(storageDir, ROOT, sha256.slice(0, 2), sha256);
}

export function tooLarge(sdk: WardSdk, maxBytes: number): ApiError {
  return sdk.errors.bodyTooLarge(
    'the file',
    maxBytes,
    'send a smaller file (the operator sets the limit with WARD_DOCUMENT_MAX_BYTES)',
  );
}

function checkedExpectation(sdk: WardSdk, expected: string | undefined): string | undefined {
  if (expected === undefined) return undefined;
  const hex = expected.toLowerCase();
  if (SHA256.test(hex)) return hex;
  throw new sdk.errors.ApiError(
    422,
    'invalid_checksum',
    `the expected SHA-256 ${JSON.stringify(expected)} is not 64 hex digits`,
    'send the SHA-256 of the file as 64 hex digits, or leave it out',
  );
}

/** Renames are durable only once their directory is synced. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Streams `source` to a temporary file, hashing it, and returns it. Removes the file on any
 * failure. The caller renames or removes the file, then releases it.
 */
async function writeTemp(
  sdk: WardSdk,
  storageDir: string,
  source: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<{ partial: PartialFile; sha256: string; size: number }> {
  const dir = path.join(storageDir, ROOT, TMP);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const partial = await sdk.files.newPartialFile(dir, UPLOAD);
  const hash = createHash('sha256');
  let size = 0;
  try {
    const handle = await open(partial.file, 'wx', 0o600);
    try {
      for await (const chunk of source) {
        size += chunk.byteLength;
        if (size > maxBytes) throw tooLarge(sdk, maxBytes);
        hash.update(chunk);
        await handle.write(chunk);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    return { partial, sha256: hash.digest('hex'), size };
  } catch (error) {
    await rm(partial.file, { force: true });
    partial.release();
    throw error;
  }
}

/**
 * Stores the bytes of `source` (a request, a file stream) under their SHA-256. Over `maxBytes`:
 * 413 as soon as the limit is passed. A different checksum than `expectedSha256`: 422. Either way
 * no file is left behind.
 */
export async function putBlob(
  sdk: WardSdk,
  storageDir: string,
  source: AsyncIterable<Uint8Array>,
  options: PutBlobOptions,
): Promise<StoredBlob> {
  const expected = checkedExpectation(sdk, options.expectedSha256);
  const { partial, sha256, size } = await writeTemp(sdk, storageDir, source, options.maxBytes);
  const { file } = partial;
  try {
    if (expected !== undefined && sha256 !== expected)
      throw new sdk.errors.ApiError(
        422,
        'checksum_mismatch',
        `the file's SHA-256 is ${sha256}, not the expected ${expected}`,
        'the file changed or was cut short on the way: send it again',
      );
    const target = blobPath(storageDir, sha256);
    if (await exists(target)) {
      await rm(file, { force: true });
      return { sha256, size, created: false };
    }
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    // Two uploads of the same bytes may race here; rename replaces a file with identical content.
    await rename(file, target);
    await syncDir(path.dirname(target));
    return { sha256, size, created: true };
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  } finally {
    partial.release();
  }
}

/**
 * Removes the temporary files of uploads whose backend died before they ended (never one a live
 * upload writes, here or on another replica); returns their names. At start-up and from
 * migration_import's sweeper.
 */
export const removeAbandonedUploads = (sdk: WardSdk, storageDir: string): Promise<string[]> =>
  sdk.files.removeAbandoned(path.join(storageDir, ROOT, TMP), UPLOAD);

/** The stored file with this SHA-256 and its size, or null when there is none. */
export async function openBlob(storageDir: string, sha256: string): Promise<OpenedBlob | null> {
  let handle;
  try {
    handle = await open(blobPath(storageDir, sha256), 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    return { stream: handle.createReadStream(), size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Where a job's source lives: `<storageDir>/migration_import/sources/<job id>` (mode 0600, in
 * folders of mode 0700: Ward's user alone reads them), a name Ward makes
 * from the job id alone, so nothing a client sends becomes part of a path. An upload is streamed
 * to a temporary file in the same directory (size-limited, hashed on the way), and renamed to its
 * job's name only inside the transaction that creates the job, so a failed upload leaves no job.
 * A temporary file a crashed backend left behind is removed by `removeAbandonedSources`.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { PartialKind, SdkFiles } from '../../../../src/sdk/index.ts';

const INCOMING: PartialKind = { prefix: '.incoming-', suffix: '' };

export const sourcesDir = (storageDir: string): string =>
  path.join(storageDir, 'migration_import', 'sources');

export const sourcePath = (storageDir: string, jobId: number): string =>
  path.join(sourcesDir(storageDir), String(jobId));

/** The upload ended past the limit; nothing was kept. */
export class TooLarge extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`the upload is larger than the limit of ${limit} bytes`);
    this.name = 'TooLarge';
    this.limit = limit;
  }
}

export type Digest = 'sha256' | 'sha1';

/**
 * Counts the bytes passing through, hashes them with the `algorithms` asked for (each costs a pass
 * over every byte), and fails the stream once they pass `limit`.
 */
export class Meter<D extends Digest> extends Transform {
  bytes = 0;
  readonly #hashes: ReadonlyArray<[D, Hash]>;
  readonly #limit: number;

  constructor(limit: number, algorithms: readonly D[]) {
    super();
    this.#limit = limit;
    this.#hashes = algorithms.map((algorithm) => [algorithm, createHash(algorithm)]);
  }

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ) {
    this.bytes += chunk.length;
    if (this.bytes > this.#limit) return done(new TooLarge(this.#limit));
    for (const [, hash] of this.#hashes) hash.update(chunk);
    done(null, chunk);
  }

  /** Lower-case hex, by algorithm. */
  digests(): Record<D, string> {
    return Object.fromEntries(
      this.#hashes.map(([algorithm, hash]) => [algorithm, hash.digest('hex')]),
    ) as Record<D, string>;
  }
}

export interface ReceivedFile {
  file: string;
  bytes: number;
  sha256: string;
  /** Moves the file to its job's name; call inside the transaction that creates the job. */
  keepAs(jobId: number): Promise<void>;
  discard(): Promise<void>;
}

/**
 * The sources' folder (and the module's, above it), readable by Ward's user alone: sources are
 * clinics' full raw exports, with columns Ward never stores (SSNs, passport numbers). Folders an
 * earlier version made with wider modes are narrowed; mkdir's mode alone changes only new ones.
 */
export async function privateSourcesDir(storageDir: string): Promise<string> {
  const dir = sourcesDir(storageDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(path.dirname(dir), 0o700);
  await chmod(dir, 0o700);
  return dir;
}

export async function receiveSource(
  files: SdkFiles,
  storageDir: string,
  body: Readable,
  limit: number,
): Promise<ReceivedFile> {
  const dir = await privateSourcesDir(storageDir);
  const partial = await files.newPartialFile(dir, INCOMING);
  const { file } = partial;
  const meter = new Meter(limit, ['sha256']);
  try {
    await pipeline(body, meter, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    await rm(file, { force: true });
    partial.release();
    throw error;
  }
  const { sha256 } = meter.digests();
  return {
    file,
    bytes: meter.bytes,
    sha256,
    keepAs: (jobId) => rename(file, sourcePath(storageDir, jobId)).finally(() => partial.release()),
    discard: () => rm(file, { force: true }).finally(() => partial.release()),
  };
}

/**
 * Removes the temporary files of source uploads whose backend died before they ended (never one
 * a live upload writes, here or on another replica; see `sdk.files`); returns
 * their names. At start-up and from the sweeper.
 */
export const removeAbandonedSources = (files: SdkFiles, storageDir: string): Promise<string[]> =>
  files.removeAbandoned(sourcesDir(storageDir), INCOMING);

/** The stored source, as a byte stream for the readers. */
export const openSource = (storageDir: string, jobId: number): Readable =>
  createReadStream(sourcePath(storageDir, jobId), { highWaterMark: 256 * 1024 });

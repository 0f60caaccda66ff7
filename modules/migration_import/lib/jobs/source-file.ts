/**
 * Where a job's source lives: `<storageDir>/migration_import/sources/<job id>`, a name Ward makes
 * from the job id alone, so nothing a client sends becomes part of a path. An upload is streamed
 * to a temporary file in the same directory (size-limited, hashed on the way), and renamed to its
 * job's name only inside the transaction that creates the job, so a failed upload leaves no job.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';

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

/** Counts and hashes the bytes passing through, and fails the stream once they pass `limit`. */
export class Meter extends Transform {
  bytes = 0;
  readonly #sha256 = createHash('sha256');
  readonly #sha1 = createHash('sha1');
  readonly #limit: number;

  constructor(limit: number) {
    super();
    this.#limit = limit;
  }

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ) {
    this.bytes += chunk.length;
    if (this.bytes > this.#limit) return done(new TooLarge(this.#limit));
    this.#sha256.update(chunk);
    this.#sha1.update(chunk);
    done(null, chunk);
  }

  digests(): { sha256: string; sha1: string } {
    return { sha256: this.#sha256.digest('hex'), sha1: this.#sha1.digest('hex') };
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

export async function receiveSource(
  storageDir: string,
  body: Readable,
  limit: number,
): Promise<ReceivedFile> {
  const dir = sourcesDir(storageDir);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `.incoming-${randomBytes(8).toString('hex')}`);
  const meter = new Meter(limit);
  try {
    await pipeline(body, meter, createWriteStream(file, { flags: 'wx' }));
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
  const { sha256 } = meter.digests();
  return {
    file,
    bytes: meter.bytes,
    sha256,
    keepAs: (jobId) => rename(file, sourcePath(storageDir, jobId)),
    discard: () => rm(file, { force: true }),
  };
}

/** The stored source, as a byte stream for the readers. */
export const openSource = (storageDir: string, jobId: number): Readable =>
  createReadStream(sourcePath(storageDir, jobId), { highWaterMark: 256 * 1024 });

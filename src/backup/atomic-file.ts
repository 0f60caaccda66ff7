/**
 * A file that appears under its name only once it is complete and on disk: written as
 * `<file>.partial` beside it, fsynced, renamed, and the directory fsynced so the rename survives a
 * crash. A reader that finds the final name can trust the whole content.
 */
import { access, mkdir, open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * Text is encoded straight into one reused buffer: no per-write strings or buffers survive long
 * enough to leave the young generation, which is what keeps memory flat on a million rows.
 */
const BUFFER_BYTES = 1 << 20;
/** write() asks for a drain past this mark, leaving room for the next small write. */
const HIGH_WATER = BUFFER_BYTES - (1 << 16);
/** A UTF-16 code unit never takes more than three bytes of UTF-8. */
const MAX_BYTES_PER_UNIT = 3;

export class AtomicFile {
  readonly file: string;
  readonly partial: string;
  private readonly handle: FileHandle;
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  /** Text that did not fit, written by the next drain(). */
  private overflow: string | null = null;
  private written = 0;

  private constructor(file: string, handle: FileHandle) {
    this.file = file;
    this.partial = `${file}.partial`;
    this.handle = handle;
  }

  /** Refuses to replace an existing file: an older backup of the same name must never be lost. */
  static async create(file: string): Promise<AtomicFile> {
    await mkdir(path.dirname(file), { recursive: true });
    if (await exists(file))
      throw Object.assign(new Error(`${file} already exists`), { code: 'EEXIST', path: file });
    // Exclusive: two writers of one name fail instead of interleaving. A crash leaves a .partial
    // under its own timestamp, so it never blocks a later backup. 0600: the rows are patient data.
    return new AtomicFile(file, await open(`${file}.partial`, 'wx', 0o600));
  }

  /**
   * Takes `text` and returns false when the caller must `await drain()` before the next write,
   * like a Node stream: backpressure without a promise per write.
   */
  write(text: string): boolean {
    if (this.overflow !== null) throw new Error('AtomicFile.write called before drain()');
    if (this.used + text.length * MAX_BYTES_PER_UNIT > BUFFER_BYTES) {
      this.overflow = text;
      return false;
    }
    this.used += this.buffer.write(text, this.used);
    return this.used < HIGH_WATER;
  }

  /** Bytes that may go into `target` before a drain; 0 after a write() that returned false. */
  room(): number {
    return this.overflow === null ? BUFFER_BYTES - this.used : 0;
  }

  /** Where the next bytes go: write at most room() bytes into `target` from `offset`, then advance(). */
  get target(): Buffer {
    return this.buffer;
  }

  get offset(): number {
    return this.used;
  }

  /** Takes the bytes written into `target` up to `end`; returns what write() returns. */
  advance(end: number): boolean {
    if (this.overflow !== null || end > BUFFER_BYTES || end < this.used)
      throw new Error('AtomicFile.advance outside its room');
    this.used = end;
    return this.used < HIGH_WATER;
  }

  /** For a piece bigger than the buffer: writes what is buffered, then the piece itself. */
  async writeBytes(bytes: Buffer): Promise<void> {
    await this.drain();
    await this.writeOut(this.buffer.subarray(0, this.used));
    this.used = 0;
    await this.writeOut(bytes);
  }

  /** Writes out what is buffered. */
  async drain(): Promise<void> {
    await this.writeOut(this.buffer.subarray(0, this.used));
    this.used = 0;
    const overflow = this.overflow;
    this.overflow = null;
    if (overflow === null) return;
    if (overflow.length * MAX_BYTES_PER_UNIT <= BUFFER_BYTES) this.used = this.buffer.write(overflow, 0);
    else await this.writeOut(Buffer.from(overflow, 'utf8'));
  }

  /** Makes the file durable under its final name and returns its size in bytes. */
  async commit(): Promise<number> {
    await this.drain();
    await this.writeOut(this.buffer.subarray(0, this.used));
    this.used = 0;
    await this.handle.sync();
    await this.handle.close();
    if (await exists(this.file))
      throw Object.assign(new Error(`${this.file} appeared while the backup ran`), { code: 'EEXIST' });
    await rename(this.partial, this.file);
    const directory = await open(path.dirname(this.file), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return this.written;
  }

  /** Removes the partial file; used on failure, so it never throws over the original error. */
  async discard(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.partial, { force: true }).catch(() => undefined);
  }

  private async writeOut(bytes: Buffer): Promise<void> {
    // A write may be partial (it is on a full disk, just before the ENOSPC), so loop until done.
    for (let offset = 0; offset < bytes.length;) {
      const { bytesWritten } = await this.handle.write(bytes, offset, bytes.length - offset);
      if (bytesWritten === 0)
        throw Object.assign(new Error(`no space left for ${this.partial}`), { code: 'ENOSPC' });
      offset += bytesWritten;
    }
    this.written += bytes.length;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

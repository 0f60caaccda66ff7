/**
 * Restore's way into a table: one COPY FROM STDIN kept open while consecutive INSERT statements of
 * a backup fill the same table and columns (their rows converted by insert-to-copy.ts), so a
 * million rows are one statement instead of two thousand. Nothing else may run on the connection
 * while a COPY is open: `close()` before any other query, and `abandon()` before a rollback.
 */
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { CopyRows } from './insert-to-copy.ts';

type CopyStream = ReturnType<typeof copyFrom>;

interface Open {
  key: string;
  table: string;
  stream: CopyStream;
  error: unknown;
}

/** A failure of the COPY into `table` (unquoted), with the server's error as `cause`. */
export class CopyFailed extends Error {
  readonly table: string;
  constructor(table: string, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.table = table;
  }
}

export class CopyIn {
  readonly #client: pg.Client;
  #open: Open | null = null;

  constructor(client: pg.Client) {
    this.#client = client;
  }

  /** Sends `rows` into `table` (unquoted), opening a COPY unless the open one has its columns. */
  async write(table: string, rows: CopyRows): Promise<void> {
    const key = `${rows.table} ${rows.columns}`;
    if (this.#open?.key !== key) {
      await this.close();
      const stream = this.#client.query(copyFrom(`COPY ${rows.table} ${rows.columns} FROM STDIN`));
      const open: Open = { key, table, stream, error: null };
      stream.on('error', (error) => (open.error ??= error));
      this.#open = open;
    }
    const open = this.#open!;
    if (open.error !== null) throw new CopyFailed(table, open.error);
    // Waits for the server only when the socket's buffer is full, like any stream.
    if (!open.stream.write(rows.text)) await once(open.stream, 'drain').catch(() => undefined);
    if (open.error !== null) throw new CopyFailed(table, open.error);
  }

  /** Ends the open COPY, if any, once the server has taken every row. */
  async close(): Promise<void> {
    const open = this.#open;
    if (open === null) return;
    this.#open = null;
    open.stream.end();
    await finished(open.stream).catch(() => undefined);
    if (open.error !== null) throw new CopyFailed(open.table, open.error);
  }

  /** Cancels the open COPY (the server discards its rows), leaving the connection usable. */
  async abandon(): Promise<void> {
    const open = this.#open;
    if (open === null) return;
    this.#open = null;
    open.stream.destroy();
    await finished(open.stream).catch(() => undefined);
  }
}

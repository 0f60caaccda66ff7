/**
 * One table's rows as a COPY block, as pg_dump writes them by default: `COPY t (...) FROM stdin;`,
 * then COPY's own text output row by row, then `\.`. The server's output goes to the file as it
 * comes, byte for byte: no row is parsed or re-encoded, and a restore (or psql -f) hands the same
 * bytes back to COPY FROM, the fastest way into a table. Memory holds one chunk at a time.
 */
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { AtomicFile } from './atomic-file.ts';
import { quoteIdentifier } from '../db/sql-literal.ts';
import type { TableInfo } from './table-catalog.ts';

const NEWLINE = 0x0a;

/** Writes the table's COPY block to `output` and returns the number of rows. */
export async function copyTable(client: pg.Client, table: TableInfo, output: AtomicFile): Promise<number> {
  const names = table.columns.map((column) => quoteIdentifier(column.name));
  // Money is written as numeric text, which the restore reads with lc_monetary = 'C' (the file's
  // settings), so the values do not depend on either server's currency format.
  const selected = table.columns.map((column, index) =>
    column.money ? `${names[index]}::numeric` : names[index],
  );
  // A table without insertable columns still has rows: COPY writes an empty line for each.
  const columns = names.length === 0 ? '' : ` (${names.join(', ')})`;
  if (!output.write(`COPY ${quoteIdentifier(table.name)}${columns} FROM stdin;\n`)) await output.drain();
  let rows = 0;
  let last = NEWLINE;
  const stream = client.query(copyTo(`COPY (SELECT ${selected.join(', ')} FROM ${table.source}) TO STDOUT`));
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (chunk.length === 0) continue;
    // Raw line breaks end rows only: COPY escapes those inside values.
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) rows++;
    last = chunk[chunk.length - 1]!;
    if (output.room() < chunk.length) await output.drain();
    if (output.room() >= chunk.length) {
      chunk.copy(output.target, output.offset);
      if (!output.advance(output.offset + chunk.length)) await output.drain();
    } else await output.writeBytes(chunk);
  }
  if (last !== NEWLINE) throw new Error('COPY data ended inside a row');
  if (!output.write('\\.\n')) await output.drain();
  return rows;
}

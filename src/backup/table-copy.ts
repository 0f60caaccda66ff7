/**
 * One table's rows as INSERT statements, streamed: COPY's text output is each value's own text
 * form, so quoting it as a literal that the column's input function reads back is exact for every
 * type, with no per-type code. Memory holds one chunk of COPY data at a time.
 */
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { AtomicFile } from './atomic-file.ts';
import { CopyRowSplitter } from './copy-text.ts';
import { encodeTuple, maxTupleBytes } from './copy-tuple.ts';
import { quoteIdentifier } from '../db/sql-literal.ts';
import type { TableInfo } from './table-catalog.ts';

/** Rows per INSERT: large enough that a restore makes few round trips, small enough to parse quickly. */
const ROWS_PER_STATEMENT = 500;
/** Wide rows end a statement early, so a restore never holds a huge one. */
const BYTES_PER_STATEMENT = 1 << 20;
const NEWLINE = 0x0a;

/** Writes the table's INSERT statements to `output` and returns the number of rows. */
export async function copyTable(client: pg.Client, table: TableInfo, output: AtomicFile): Promise<number> {
  const name = quoteIdentifier(table.name);
  const names = table.columns.map((column) => quoteIdentifier(column.name));
  const selected = table.columns.map((column, index) =>
    column.money ? `${names[index]}::numeric` : names[index],
  );
  // Money is read as numeric text; the cast back keeps its literals independent of lc_monetary.
  const casts = table.columns.map((column) => (column.money ? '::numeric' : ''));
  const overriding = table.identityAlways ? 'OVERRIDING SYSTEM VALUE ' : '';
  // VALUES () is not SQL; a table without insertable columns still has rows to restore.
  const first =
    names.length === 0
      ? `INSERT INTO ${name} DEFAULT VALUES`
      : `INSERT INTO ${name} (${names.join(', ')}) ${overriding}VALUES\n`;
  const next = names.length === 0 ? `;\n${first}` : ',\n';
  let inStatement = 0;
  let statementBytes = 0;
  let rows = 0;
  const stream = client.query(copyTo(`COPY (SELECT ${selected.join(', ')} FROM ${table.source}) TO STDOUT`));
  const splitter = new CopyRowSplitter();
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const data = splitter.push(chunk);
    for (let start = 0; start < data.length;) {
      const end = data.indexOf(NEWLINE, start);
      // Awaits only when the buffer is full: a promise per row would cost more than the row.
      if (!output.write(inStatement === 0 ? first : next)) await output.drain();
      if (names.length === 0) {
        if (end !== start) throw new Error('COPY returned data for a row without columns');
      } else {
        const bound = maxTupleBytes(end - start, names.length);
        if (output.room() < bound) await output.drain();
        if (output.room() >= bound) {
          const written = encodeTuple(data, start, end, casts, output.target, output.offset);
          statementBytes += written - output.offset;
          if (!output.advance(written)) await output.drain();
        } else {
          // Larger than the whole buffer: encode into its own, once.
          const own = Buffer.allocUnsafe(bound);
          const written = encodeTuple(data, start, end, casts, own, 0);
          statementBytes += written;
          await output.writeBytes(own.subarray(0, written));
        }
      }
      rows++;
      if (++inStatement >= ROWS_PER_STATEMENT || statementBytes >= BYTES_PER_STATEMENT) {
        if (!output.write(';\n')) await output.drain();
        inStatement = 0;
        statementBytes = 0;
      }
      start = end + 1;
    }
  }
  splitter.end();
  if (inStatement > 0 && !output.write(';\n')) await output.drain();
  return rows;
}

/**
 * The results table `npm run bench` keeps in docs/benchmarks.md, between two markers: one row per
 * benchmark with the lines it printed that carry a figure against its baseline or target, the
 * day it ran and the machine it ran on. Pure: text in, text out.
 */
import os from 'node:os';

export const BEGIN = '<!-- bench results: written by npm run bench -->';
export const END = '<!-- end of bench results -->';

export interface Row {
  benchmark: string;
  result: string;
  ran: string;
  machine: string;
}

/** The lines of a benchmark's output that carry its figures (a ratio `-> 0.85x` or a target). */
export const figureLines = (output: string): string[] =>
  output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => / -> |target/.test(line));

/** Cores, memory and Node version of this machine, as a row records it. */
export function machine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  return `${cpus.length} cores (${model}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
}

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The rows between the markers of `doc`; none when it has no table yet. */
export function readRows(doc: string): Row[] {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1) return [];
  return doc
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((part) => part.trim().replaceAll('\\|', '|'));
      return {
        benchmark: cells[0]!.replaceAll('`', ''),
        result: cells[1]!.split('<br>').join('\n'),
        ran: cells[2]!,
        machine: cells[3]!,
      };
    });
}

/** `doc` with its table holding `rows` (earlier rows of other benchmarks kept, in `order`). */
export function writeRows(doc: string, fresh: readonly Row[], order: readonly string[]): string {
  const byName = new Map(readRows(doc).map((row) => [row.benchmark, row]));
  for (const row of fresh) byName.set(row.benchmark, row);
  const rows = [...byName.values()].sort(
    (a, b) =>
      order.indexOf(a.benchmark.replace(/^bench\/|\.ts$/g, '')) -
      order.indexOf(b.benchmark.replace(/^bench\/|\.ts$/g, '')),
  );
  const table = [
    BEGIN,
    '',
    '| benchmark | result | ran | machine |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| \`${row.benchmark}\` | ${cell(row.result.split('\n').join('<br>'))} | ${cell(row.ran)} | ${cell(row.machine)} |`,
    ),
    '',
    END,
  ].join('\n');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1) return `${doc.trimEnd()}\n\n## Last results\n\n${table}\n`;
  return doc.slice(0, start) + table + doc.slice(end + END.length);
}

/**
 * The results table `npm run bench` keeps in docs/benchmarks.md: figure lines are picked from a
 * benchmark's output, a run replaces only its own benchmarks' rows, and rows read back as written.
 */
import test from 'ava';
import { BEGIN, END, figureLines, readRows, writeRows } from '../../bench/results.ts';

const ORDER = ['planner', 'permission', 'backup'];
const DOC = `# Benchmarks\n\nIntro.\n\n## Last results\n\n${BEGIN}\n${END}\n\n## Containers\n`;

const row = (name: string, result: string, ran = '2026-11-27') => ({
  benchmark: `bench/${name}.ts`,
  result,
  ran,
  machine: '2 cores (Test CPU), 3.8 GiB, Node v24.0.0',
});

test('only the lines with a ratio or a target are figures', (t) => {
  t.deepEqual(
    figureLines('seeded 1,000,000 rows in 9.1 s\nrestore: ward 3 s, psql 6 s -> 0.50x (target <= 1.0x)\n\n'),
    ['restore: ward 3 s, psql 6 s -> 0.50x (target <= 1.0x)'],
  );
});

test('a run replaces its own rows, keeps the others, and orders them as the benchmarks run', (t) => {
  const first = writeRows(
    DOC,
    [row('backup', 'backup -> 0.19x\nrestore -> 0.50x'), row('planner', 'a | b')],
    ORDER,
  );
  t.true(first.startsWith('# Benchmarks\n\nIntro.'));
  t.true(first.endsWith('## Containers\n'));
  t.deepEqual(readRows(first), [row('planner', 'a | b'), row('backup', 'backup -> 0.19x\nrestore -> 0.50x')]);
  const second = writeRows(
    first,
    [row('permission', 'x -> 0.81x', '2026-11-28'), row('planner', 'p -> 1x')],
    ORDER,
  );
  t.deepEqual(readRows(second), [
    row('planner', 'p -> 1x'),
    row('permission', 'x -> 0.81x', '2026-11-28'),
    row('backup', 'backup -> 0.19x\nrestore -> 0.50x'),
  ]);
});

test('a page without the markers gets the table appended under its own heading', (t) => {
  const written = writeRows('# Benchmarks\n', [row('planner', 'p -> 1x')], ORDER);
  t.regex(written, /## Last results\n\n<!-- bench results/);
  t.deepEqual(readRows(written), [row('planner', 'p -> 1x')]);
});

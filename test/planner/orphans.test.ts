/**
 * What counts as an orphan: a module the database counts on whose code is gone. One whose code is
 * on disk with a broken manifest (or two copies) is not: orphaning it would strand its tables,
 * so neither start-up nor `ward modules orphan` suggests it.
 */
import test from 'ava';
import { assertNoOrphans, findOrphans } from '../../src/planner/bootstrap.ts';
import { decideOrphan } from '../../src/planner/orphan.ts';
import { inventoryOf, manifestProblem, rowsOf } from '../helpers/inventory.ts';

const rows = rowsOf({ base: 'installed', lab: 'installed', gone: 'installed', old: 'uninstalled' });
const inventory = inventoryOf({ base: {} }, [
  manifestProblem('lab', 'module "lab" is also defined in /b/lab'),
]);

test('only modules missing from disk are orphans', (t) => {
  t.deepEqual(findOrphans(inventory, rows), ['gone']);
});

test('start-up names a broken module and its problem first, and does not suggest orphaning it', (t) => {
  const error = t.throws(() => assertNoOrphans(inventory, rows));
  t.is(
    error?.message,
    'modules the database counts on whose code on disk Ward cannot use:\n' +
      'lab: /modules/lab/manifest.json: module "lab" is also defined in /b/lab',
  );
  t.regex((error as Error & { hint: string }).hint, /do not orphan these modules/);
  const onlyGone = inventoryOf({ base: {}, lab: {} });
  t.regex(t.throws(() => assertNoOrphans(onlyGone, rows))?.message ?? '', /^orphan modules .*\ngone$/);
});

test('orphan refuses a module whose code is on disk but broken, naming the problem', (t) => {
  const error = t.throws(() => decideOrphan(inventory, rows, 'lab'));
  t.is(
    error?.message,
    'lab is on disk with a broken manifest, so it is not an orphan: module "lab" is also defined in /b/lab (/modules/lab/manifest.json)',
  );
  t.deepEqual(decideOrphan(inventory, rows, 'gone'), { change: true });
});

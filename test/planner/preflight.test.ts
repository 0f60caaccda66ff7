/**
 * The preflight: what the next start would refuse, as the start itself would say it, so that a
 * restart can refuse while the running backend keeps serving.
 */
import test from 'ava';
import { WardError } from '../../src/errors/ward-error.ts';
import { assertNoOrphans, assertTablesPresent } from '../../src/planner/bootstrap.ts';
import { diagnose, findingCount } from '../../src/planner/doctor.ts';
import { preflight, renderFindings, restartRefused, type StartInputs } from '../../src/planner/preflight.ts';
import { inventoryOf, manifestProblem, rowsOf } from '../helpers/inventory.ts';

const healthy: StartInputs = {
  inventory: inventoryOf({ base: {}, lab: { depends: ['base'] } }),
  rows: rowsOf({ base: 'installed', lab: 'to_install' }),
  missingTables: [],
  settings: null,
  database: null,
  storage: null,
  grants: null,
  firstAdminFile: null,
};

const grantsError = new WardError(
  'invalid_grants_file',
  "/srv/grants.json: is not valid JSON: Unexpected token ']' at line 3, column 24",
  'fix the file',
);
const settingsError = new WardError('invalid_setting', 'PORT="eighty" is not a TCP port', 'give a number');
const databaseError = new WardError('database_url_invalid', 'DATABASE_URL is not a URL', 'give postgres://…');
const storageError = new WardError(
  'storage_unusable',
  'cannot use the storage folder /srv (EACCES)',
  'set it',
);
const firstAdminError = new WardError(
  'first_admin_file_exists',
  '/srv/first-admin-password already exists',
  'delete it',
);

test('nothing that would stop a start: no findings', (t) => {
  t.deepEqual(preflight(healthy), []);
});

test('every reason a start would refuse is found, in the order the start checks them', (t) => {
  const inventory = inventoryOf({ base: {} });
  const rows = rowsOf({ base: 'installed', gone: 'installed' });
  const missingTables = [{ module_name: 'base', table_name: 'base_session' }];
  const findings = preflight({
    inventory,
    rows,
    missingTables,
    settings: settingsError,
    database: databaseError,
    storage: storageError,
    grants: grantsError,
    firstAdminFile: firstAdminError,
  });
  t.deepEqual(
    findings.map((finding) => finding.code),
    [
      'invalid_setting',
      'database_url_invalid',
      'storage_unusable',
      'invalid_grants_file',
      'orphan_modules',
      'tables_missing',
      'first_admin_file_exists',
    ],
  );
  // The start's own words: the same check, one source of truth.
  const orphans = t.throws(() => assertNoOrphans(inventory, rows)) as WardError;
  t.deepEqual(findings[4], { code: orphans.code, message: orphans.message, hint: orphans.hint });
  const tables = t.throws(() => assertTablesPresent(missingTables)) as WardError;
  t.deepEqual(findings[5], { code: tables.code, message: tables.message, hint: tables.hint });
});

test('a module the database counts on whose manifest is broken is found; one it does not count on is not', (t) => {
  const inventory = inventoryOf({ base: {} }, [manifestProblem('lab'), manifestProblem('spare')]);
  const findings = preflight({
    ...healthy,
    inventory,
    rows: rowsOf({ base: 'installed', lab: 'to_install' }),
  });
  t.deepEqual(
    findings.map((finding) => finding.code),
    ['modules_broken_on_disk'],
  );
  t.regex(findings[0]?.message ?? '', /^lab: \/modules\/lab\/manifest\.json: must have required property/m);
});

test('the refusal lists each finding with its fix and says how to restart anyway', (t) => {
  const error = restartRefused(preflight({ ...healthy, grants: grantsError }), '`--force`');
  t.is(error.code, 'restart_refused');
  t.is(
    error.message,
    'not restarted: the backend would refuse to start again:\n' +
      renderFindings([{ code: grantsError.code, message: grantsError.message, hint: grantsError.hint }]),
  );
  t.regex(
    error.message,
    /^- \/srv\/grants\.json: is not valid JSON: .* at line 3, column 24\n {2}fix: fix the file$/m,
  );
  t.regex(error.hint, /^a running backend keeps serving; .* `--force` restarts anyway/);
});

test('doctor reports the settings, database URL, storage and grants file findings the preflight finds', (t) => {
  const files = {
    settings: settingsError,
    database: databaseError,
    storage: storageError,
    grants: grantsError,
  };
  const report = diagnose(healthy.inventory, healthy.rows, [], [], files);
  t.deepEqual(report.configuration, preflight({ ...healthy, ...files }));
  t.is(findingCount(report), 4);
  t.deepEqual(diagnose(healthy.inventory, healthy.rows).configuration, []);
});

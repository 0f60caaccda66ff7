/**
 * The Modules admin page when something is wrong, by keyboard: a restart whose module step fails
 * (the fixture broken_seed, whose seed names a column its migration does not create) is followed
 * to the end and names that module and its error, in the restart's outcome, the module list and
 * the doctor; and a doctor finding other than an error (a module on disk whose dependency is
 * nowhere) is listed.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { FIXTURES, scratchDir } from '../helpers/cli.ts';
import {
  axeCheck,
  eventually,
  launchBrowser,
  screenshot,
  sidebar,
  signIn,
  startBackend,
  tabTo,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;
/** A module folder of the test's own: `lonely`, which depends on a module that exists nowhere. */
let extra: string;

test.before(async () => {
  extra = await scratchDir('ward-browser-modules-');
  await mkdir(path.join(extra, 'lonely'));
  await writeFile(
    path.join(extra, 'lonely', 'manifest.json'),
    `${JSON.stringify({
      name: 'lonely',
      version: '1.0.0',
      summary: 'Depends on a module that is nowhere on disk',
      depends: ['no_such_module'],
    })}\n`,
  );
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients'],
    users: [{ username: 'alice', roles: ['admin'] }],
    env: {
      WARD_MODULE_PATHS: [
        path.join(FIXTURES, 'modules', 'community'),
        path.join(FIXTURES, 'modules', 'lifecycle-bad'),
        extra,
      ].join(':'),
    },
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
  await rm(extra, { recursive: true, force: true });
});

/** The cells of the module table's row for `name` (its first cell): module, state, version, … */
async function moduleRow(page: Page, name: string): Promise<string[]> {
  const table = page.getByRole('table', { name: 'Every module on disk or in the database' });
  for (const row of await table.locator('tbody tr').all()) {
    const cells = (await row.getByRole('cell').allInnerTexts()).map((cell) => cell.trim());
    if (cells[0] === name) return cells;
  }
  return [];
}

/** The items the doctor lists under `title`. */
async function doctorFindings(page: Page, title: string): Promise<string[]> {
  const doctor = page.getByRole('region', { name: 'Doctor' });
  const list = doctor.locator('div').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
  return (await list.getByRole('listitem').allInnerTexts()).map((item) => item.replace(/\s+/g, ' ').trim());
}

test('a restart whose module step fails shows that module and its error; the doctor lists its findings', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  await tabTo(page, sidebar(page).filter({ hasText: 'Modules' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Modules', level: 1 }).waitFor();

  await page.getByRole('heading', { name: 'Missing dependencies' }).waitFor();
  t.deepEqual(await doctorFindings(page, 'Missing dependencies'), [
    'lonely depends on no_such_module, not found',
  ]);
  t.is(await page.getByText('No issues found').count(), 0);
  await axeCheck(page, t);
  await screenshot(page, 'modules-doctor-findings');

  await backend.cli(['modules', 'install', 'broken_seed']);
  await page.reload();
  await page.locator('[data-plan]').waitFor();
  await tabTo(page, page.getByRole('button', { name: 'Restart', exact: true }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Restarted' }).waitFor();

  const inError = page.getByRole('alert').filter({ hasText: 'Modules in error' });
  await inError.waitFor();
  const listed = (await inError.getByRole('listitem').allInnerTexts()).map((item) => item.trim());
  t.is(listed.length, 1, listed.join('\n'));
  t.regex(listed[0]!, /^broken_seed \(\w+\): .+/);
  const failed = page.getByRole('table', { name: 'Steps the restart applied, oldest first' });
  t.regex(
    (await failed.getByRole('row').allInnerTexts()).join('\n'),
    /broken_seed\s+install\s+seed\s+failed/,
    'the steps show where the install failed',
  );
  const errorMessage = listed[0]!.replace(/^broken_seed \(\w+\): /, '');
  await eventually(
    t,
    async () => (await moduleRow(page, 'broken_seed')).at(-1),
    errorMessage,
    "the module list shows broken_seed's error",
  );
  await eventually(
    t,
    async () =>
      (await doctorFindings(page, 'Modules in error')).some((item) => item.startsWith('broken_seed')),
    true,
    'the doctor lists broken_seed in error',
  );
  t.deepEqual(await doctorFindings(page, 'Missing dependencies'), [
    'lonely depends on no_such_module, not found',
  ]);
  const stored = await backend.knex('core_module').where({ name: 'broken_seed' }).first('error_message');
  t.is(
    String(stored?.error_message).replace(/\s+/g, ' '),
    errorMessage,
    "the page shows the database's words",
  );
  t.regex(errorMessage, /^install failed at seed: .*table broken_seed_item has no column colour$/);
  await axeCheck(page, t);
  await screenshot(page, 'modules-restart-module-error');
});

/**
 * The Modules page and the sidebar agree with the CLI on a module left inactive by
 * `uninstall --force`: the plan names it before the restart; after it, its sidebar entry is gone,
 * its page is not found, the module list shows it installed with the reason, and the doctor lists
 * it under missing dependencies (not again as in error).
 */
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { FIXTURES } from '../helpers/cli.ts';
import {
  axeCheck,
  eventually,
  launchBrowser,
  screenshot,
  sidebar,
  sidebarLabels,
  signIn,
  startBackend,
  tabTo,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['vitals_alerts'],
    users: [{ username: 'alice', roles: ['admin'] }],
    env: { WARD_MODULE_PATHS: path.join(FIXTURES, 'modules', 'dependents') },
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

async function moduleRow(page: Page, name: string): Promise<string[]> {
  const table = page.getByRole('table', { name: 'Every module on disk or in the database' });
  for (const row of await table.locator('tbody tr').all()) {
    const cells = (await row.getByRole('cell').allInnerTexts()).map((cell) => cell.trim());
    if (cells[0] === name) return cells;
  }
  return [];
}

async function doctorFindings(page: Page, title: string): Promise<string[]> {
  const doctor = page.getByRole('region', { name: 'Doctor' });
  const list = doctor.locator('div').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
  return (await list.getByRole('listitem').allInnerTexts()).map((item) => item.replace(/\s+/g, ' ').trim());
}

test('a dependent left inactive by uninstall --force: named in the plan, gone from the sidebar, listed by the doctor', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  t.true((await sidebarLabels(page)).includes('Vital sign alerts'));

  await backend.cli(['modules', 'uninstall', 'vitals', '--force']);
  await tabTo(page, sidebar(page).filter({ hasText: 'Modules' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Modules', level: 1 }).waitFor();
  const plan = page.locator('[data-plan]');
  await plan.waitFor();
  t.deepEqual(
    (await plan.getByRole('listitem').allInnerTexts()).map((item) => item.replace(/\s+/g, ' ').trim()),
    [
      '- uninstall vitals 1.0.0 (pending)',
      '! vitals_alerts left without vitals: stays installed but inactive until vitals is installed again',
    ],
  );
  t.deepEqual(await doctorFindings(page, 'Missing dependencies'), [
    'vitals_alerts (installed) depends on vitals, which is to_uninstall: vitals_alerts is inactive from the next restart: run `ward modules install vitals` (this cancels its pending uninstall), or uninstall vitals_alerts',
  ]);

  await tabTo(page, page.getByRole('button', { name: 'Restart', exact: true }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Restarted' }).waitFor();
  const inactive = page.getByRole('alert').filter({ hasText: 'Inactive modules' });
  await inactive.waitFor();
  t.is(await page.getByRole('alert').filter({ hasText: 'Modules in error' }).count(), 0);
  const stored = (await backend.knex('core_module').where({ name: 'vitals_alerts' }).first()) as {
    state: string;
    error_message: string;
  };
  t.is(stored.state, 'installed');
  t.regex(stored.error_message, /^vitals_alerts is inactive: it depends on vitals, which is not installed; /);
  t.deepEqual(
    (await inactive.getByRole('listitem').allInnerTexts()).map((item) => item.replace(/\s+/g, ' ').trim()),
    [`vitals_alerts (installed): ${stored.error_message}`],
    'the restart names the module it left inactive, with the reason',
  );
  await eventually(
    t,
    async () => (await moduleRow(page, 'vitals_alerts')).map((cell) => cell.replace(/\s+/g, ' ')),
    ['vitals_alerts', 'installed', '1.0.0', '1.0.0', 'community', 'vitals', stored.error_message],
    'the module list shows it installed, with the reason it is inactive',
  );
  await eventually(
    t,
    () => doctorFindings(page, 'Missing dependencies'),
    [
      'vitals_alerts (installed) depends on vitals, which is uninstalled: vitals_alerts is inactive until vitals is installed: run `ward modules install vitals` and restart, or uninstall vitals_alerts',
    ],
    'the doctor lists it under missing dependencies',
  );
  t.deepEqual(await doctorFindings(page, 'Modules in error'), [], 'and not again as in error');
  await axeCheck(page, t);
  await screenshot(page, 'modules-inactive-dependent');

  await page.goto(`${backend.base}/vitals-alerts`);
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  t.false((await sidebarLabels(page)).includes('Vital sign alerts'), 'its sidebar entry is gone');
  t.false((await sidebarLabels(page)).includes('Vital signs'));
});

/**
 * The Modules admin page end to end, by keyboard: an admin sees the installed modules, a change
 * scheduled with the CLI shows in the plan, a restart the next start would refuse shows its
 * findings, and a restart is followed to the end with the steps it applied. A user without
 * base.module.read has no Modules entry.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import {
  axeCheck,
  eventually,
  launchBrowser,
  screenshot,
  serverAnswer,
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
    modules: ['patients'],
    users: [
      { username: 'alice', roles: ['admin'] },
      { username: 'carl', roles: ['clinician'] },
    ],
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
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

const planLines = async (page: Page) =>
  (await page.locator('[data-plan] li').allInnerTexts()).map((line) => line.replace(/\s+/g, ' ').trim());

test.serial(
  'an admin sees the modules, the plan of a CLI install, and follows a restart to the end',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'alice');

    await tabTo(page, sidebar(page).filter({ hasText: 'Modules' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Modules', level: 1 }).waitFor();
    await page.getByText('No issues found').waitFor();
    await page.getByText('Nothing pending: the next restart changes no module.').waitFor();
    await eventually(
      t,
      async () => (await moduleRow(page, 'patients')).slice(0, 2),
      ['patients', 'installed'],
      'patients is listed installed',
    );
    t.deepEqual((await moduleRow(page, 'base')).slice(0, 2), ['base', 'installed']);
    t.deepEqual((await moduleRow(page, 'appointments')).slice(0, 2), ['appointments', 'uninstalled']);
    await page.getByRole('table', { name: 'Module operations, newest first' }).waitFor();
    await axeCheck(page, t);
    await screenshot(page, 'modules-list');

    await backend.cli(['modules', 'install', 'appointments']);
    await page.reload();
    await page.locator('[data-plan]').waitFor();
    t.deepEqual(await planLines(page), ['+ install appointments 1.2.0 (pending)']);
    await page.getByText('Plan: 1 to install, 0 to upgrade, 0 to uninstall.').waitFor();
    t.deepEqual((await moduleRow(page, 'appointments')).slice(0, 2), ['appointments', 'to_install']);
    await axeCheck(page, t);
    await screenshot(page, 'modules-plan');

    // A grants file that does not parse: the next start would refuse, so the restart is refused.
    const grants = path.join(backend.env.WARD_STORAGE_DIR ?? '', 'grants.json');
    await writeFile(grants, '{"roles": ');
    await tabTo(page, page.getByRole('button', { name: 'Restart', exact: true }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Restart refused' }).waitFor();
    t.regex(await page.getByRole('alert').filter({ hasText: 'grants' }).innerText(), /grants\.json/);
    await page.getByRole('button', { name: 'Restart anyway' }).waitFor();
    t.deepEqual(
      (await backend.knex('core_module').where({ name: 'appointments' }).select('state')).map(
        (row) => row.state,
      ),
      ['to_install'],
      'nothing restarted',
    );
    await axeCheck(page, t);
    await screenshot(page, 'modules-restart-refused');
    await tabTo(page, page.getByRole('button', { name: 'Cancel' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Restart refused' }).waitFor({ state: 'detached' });
    await rm(grants);

    await tabTo(page, page.getByRole('button', { name: 'Restart', exact: true }));
    await page.keyboard.press('Enter');
    await page.getByText('Healthy again: a new backend serves.').waitFor();
    const steps = page.getByRole('table', { name: 'Steps the restart applied, oldest first' });
    const applied = await steps.getByRole('row').allInnerTexts();
    t.true(
      applied.some((row) => /appointments\s+install\s+finalize\s+done/.test(row)),
      `the steps name the install of appointments:\n${applied.join('\n')}`,
    );
    await eventually(
      t,
      async () => (await moduleRow(page, 'appointments')).slice(0, 2),
      ['appointments', 'installed'],
      'appointments is installed',
    );
    await page.getByText('Nothing pending: the next restart changes no module.').waitFor();
    t.false(await page.getByRole('heading', { name: 'Modules in error' }).isVisible());
    await axeCheck(page, t);
    await screenshot(page, 'modules-restarted');

    // The log pages back with `before`: the second page ends with the oldest row, the first schedule.
    const pages = page.getByRole('navigation', { name: 'Operation log pages' });
    await tabTo(page, pages.getByRole('button', { name: 'Next page' }));
    await page.keyboard.press('Enter');
    await pages.getByText('Page 2').waitFor();
    const log = page.getByRole('table', { name: 'Module operations, newest first' });
    t.regex(
      (await log.locator('tbody tr').last().innerText()).replace(/\s+/g, ' '),
      /base install schedule done/,
    );
    t.true(await pages.getByRole('button', { name: 'Previous page' }).isEnabled());
    await axeCheck(page, t);
    await screenshot(page, 'modules-log-page-2');
  },
);

test.serial('a user without base.module.read has no Modules entry, and the page says why', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'carl');
  const labels = await sidebarLabels(page);
  t.true(labels.includes('Patients'));
  t.false(labels.includes('Modules'));
  const refused = page.waitForResponse(
    (response) => new URL(response.url()).pathname === '/api/v1/modules' && response.status() === 403,
  );
  await page.goto(`${backend.base}/modules`);
  await refused;
  const { error } = (await serverAnswer(page, backend.base, '/api/v1/modules')).body as {
    error: { message: string; hint: string };
  };
  t.is(error.message, 'permission denied: base.module.read');
  const banner = page.getByRole('alert').filter({ hasText: 'You do not have permission to do this.' });
  await banner.waitFor();
  t.notRegex(await banner.innerText(), /ward users|base\.module\.read/, 'no operator wording shows');
  t.is(
    (await banner.locator('details p').first().textContent())?.trim(),
    `permission_denied: ${error.message}`,
    "the server's words, folded away for an administrator",
  );
  t.is(await page.getByRole('table').count(), 0, 'nothing of the modules is shown');
  t.false(await page.getByRole('button', { name: 'Restart', exact: true }).isVisible());
  await axeCheck(page, t);
  await screenshot(page, 'modules-forbidden');
});

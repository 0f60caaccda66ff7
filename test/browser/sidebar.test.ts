/**
 * The sidebar is the installed modules' navigation entries the user's roles allow: every entry for
 * an admin, none of a module whose permission a role lacks, and fewer once a role is revoked.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { ROOT } from '../../src/config.ts';
import {
  axeCheck,
  eventually,
  launchBrowser,
  screenshot,
  sidebarLabels,
  signIn,
  startBackend,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

/** Every official module with navigation; installing migration_import brings the others along. */
const MODULES = ['appointments', 'base', 'documents', 'migration_import', 'patients'];

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['migration_import'],
    // A role of the clinic's own (grants.json) that may see appointments and nothing of patients.
    grants: { scheduler: ['appointments.appointment.read'] },
    users: [
      { username: 'alice', roles: ['admin'] },
      { username: 'sam', roles: ['scheduler'] },
      { username: 'carol', roles: ['clinician', 'scheduler'] },
    ],
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** What the manifests on disk offer, in module name order as /active lists them. */
async function allEntries(): Promise<string[]> {
  const labels = await Promise.all(
    MODULES.map(async (name) => {
      const manifest = JSON.parse(await readFile(path.join(ROOT, 'modules', name, 'manifest.json'), 'utf8'));
      return ((manifest.navigation ?? []) as Array<{ label: string }>).map((entry) => entry.label);
    }),
  );
  return labels.flat();
}

test('an admin sees every navigation entry of the installed modules', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  const expected = await allEntries();
  t.true(expected.includes('Patients') && expected.includes('Data import'));
  await eventually(t, () => sidebarLabels(page), expected, 'the admin sidebar');
  await axeCheck(page, t);
  await screenshot(page, 'sidebar-admin');
});

test('a role without the patients permission gets no Patients entry', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'sam');
  await eventually(t, () => sidebarLabels(page), ['Appointments'], 'the scheduler sidebar');
  await axeCheck(page, t);
  await screenshot(page, 'sidebar-scheduler');
});

test('after `ward users revoke`, the next page load shows the reduced sidebar and the API refuses', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'carol');
  await eventually(
    t,
    () => sidebarLabels(page),
    ['Appointments', 'Documents', 'Patients'],
    'the clinician sidebar',
  );

  await backend.cli(['users', 'revoke', 'carol', 'clinician']);
  // Still signed in: the pages already shown stay until the next load, but the server refuses at once.
  await page.getByRole('navigation', { name: 'Modules' }).getByRole('link', { name: 'Patients' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /permission/i })
    .waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'revoked-patients-refused');

  await page.goto(backend.base);
  await eventually(t, () => sidebarLabels(page), ['Appointments'], 'the sidebar after the revoke');
  t.regex(await page.locator('.topbar').innerText(), /Roles: scheduler/);
  await axeCheck(page, t);
  await screenshot(page, 'sidebar-after-revoke');
});

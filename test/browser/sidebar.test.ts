/**
 * The sidebar is the installed modules' navigation entries the user's roles allow: every entry for
 * an admin, none of a module whose permission a role lacks, and fewer once a role is revoked (at
 * the next in-app navigation, without a reload). A page the user lacks the permission for says so
 * in a person's words, with the server's `permission denied: <name>` folded away.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { ROOT } from '../../src/config.ts';
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
      { username: 'cora', roles: ['clinician', 'scheduler'] },
    ],
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** What the manifests on disk offer. */
async function allEntries(): Promise<string[]> {
  const labels = await Promise.all(
    MODULES.map(async (name) => {
      const manifest = JSON.parse(await readFile(path.join(ROOT, 'modules', name, 'manifest.json'), 'utf8'));
      return ((manifest.navigation ?? []) as Array<{ label: string }>).map((entry) => entry.label);
    }),
  );
  return labels.flat();
}

test("an admin sees every navigation entry of the installed modules, in a clinic's order", async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  const expected = [
    'Patients',
    'Appointments',
    'Documents',
    'Data import',
    'Practitioners',
    'Modules',
    'Staff',
    'Audit',
  ];
  t.deepEqual([...(await allEntries())].sort(), [...expected].sort(), 'every entry the manifests offer');
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
    ['Patients', 'Appointments', 'Documents'],
    'the clinician sidebar',
  );

  await backend.cli(['users', 'revoke', 'carol', 'clinician']);
  // Still signed in: the pages already shown stay until the next load, but the server refuses at once.
  const refused = page.waitForResponse(
    (response) => response.url().includes('/api/v1/patients/patients') && response.status() === 403,
  );
  await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
  await page.keyboard.press('Enter');
  await refused;
  const again = await serverAnswer(page, backend.base, '/api/v1/patients/patients');
  t.is(again.status, 403);
  const { error } = again.body as { error: { message: string } };
  t.is(error.message, 'permission denied: patients.patient.read');
  await page.getByRole('alert').filter({ hasText: 'You do not have permission to do this.' }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'revoked-patients-refused');

  await page.goto(backend.base);
  await eventually(t, () => sidebarLabels(page), ['Appointments'], 'the sidebar after the revoke');
  t.regex(await page.locator('.topbar').innerText(), /Roles: scheduler/);
  await axeCheck(page, t);
  await screenshot(page, 'sidebar-after-revoke');
});

/** The permissions the server gives the page's session now (GET /api/v1/me with its cookie). */
async function serverPermissions(page: Page): Promise<string[]> {
  return ((await serverAnswer(page, backend.base, '/api/v1/me')).body as { permissions: string[] })
    .permissions;
}

test('after `ward users revoke`, the sidebar shrinks at the next in-app navigation, without a reload', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'cora');
  await eventually(
    t,
    () => sidebarLabels(page),
    ['Patients', 'Appointments', 'Documents'],
    'the clinician sidebar',
  );
  // A mark on this document: a full reload would start a new one without it.
  await page.evaluate(() => Object.assign(globalThis, { wardTestSameDocument: true }));

  await backend.cli(['users', 'revoke', 'cora', 'clinician']);
  // The server takes the revoke at once for new reads; waiting for it (not for a fixed time) keeps
  // the navigation below from racing the database's notification to the backend's cache.
  await eventually(
    t,
    async () => (await serverPermissions(page)).includes('patients.patient.read'),
    false,
    'the server no longer grants patients.patient.read',
  );
  t.deepEqual(
    await sidebarLabels(page),
    ['Patients', 'Appointments', 'Documents'],
    'nothing changes on the page before the user acts',
  );

  await tabTo(page, sidebar(page).filter({ hasText: 'Appointments' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Appointments', level: 1 }).waitFor();
  await eventually(t, () => sidebarLabels(page), ['Appointments'], 'the sidebar after the navigation');
  t.regex(await page.locator('.topbar').innerText(), /Roles: scheduler/);
  t.true(
    await page.evaluate(
      () => (globalThis as { wardTestSameDocument?: boolean }).wardTestSameDocument === true,
    ),
    'the page was not reloaded',
  );
  await axeCheck(page, t);
  await screenshot(page, 'sidebar-revoked-in-app');
});

test("a page the user lacks the permission for says so in a person's words, the server's folded away", async (t) => {
  const page = await browser.page(t);
  await page.goto(`${backend.base}/patients`);
  const refused = page.waitForResponse(
    (response) => response.url().includes('/api/v1/patients/patients') && response.status() === 403,
  );
  await signIn(page, 'sam');
  await refused;
  const { error } = (await serverAnswer(page, backend.base, '/api/v1/patients/patients')).body as {
    error: { code: string; message: string; hint: string };
  };
  t.is(error.code, 'permission_denied');
  t.is(error.message, 'permission denied: patients.patient.read');
  const banner = page.getByRole('alert').filter({ hasText: 'You do not have permission to do this.' });
  await banner.waitFor();
  t.is(
    (await banner.locator('.banner-hint').innerText()).trim(),
    'If your work needs it, ask your administrator for a role that allows it.',
  );
  t.notRegex(await banner.innerText(), /ward users|patients\.patient\.read/, 'no operator wording shows');
  t.is(
    (await banner.locator('details p').first().textContent())?.trim(),
    `${error.code}: ${error.message}`,
    "the server's words, folded away for an administrator",
  );
  t.is(await page.getByRole('table').count(), 0, 'no patient is shown');
  t.deepEqual(await sidebarLabels(page), ['Appointments']);
  await axeCheck(page, t);
  await screenshot(page, 'patients-permission-denied');
});

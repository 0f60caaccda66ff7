/**
 * Signing in and out through the shell's form, from the keyboard, against a real `ward serve`; a
 * session that expires returns the user to sign-in and then to the page they were on; the first
 * admin's Ward-chosen password must be replaced first; and what the shell shows when
 * `/api/v1/modules/-/active` fails for real.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import {
  axeCheck,
  eventually,
  focused,
  launchBrowser,
  screenshot,
  sidebar,
  sidebarLabels,
  signIn,
  signOut,
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
      { username: 'dave', roles: ['admin'] },
      { username: 'erin', roles: ['receptionist'] },
    ],
  });
  await backend
    .knex('patients_patient')
    .insert({ mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' });
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

test('a wrong password shows an error on the sign-in page and no sidebar', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await page.getByLabel('Username').waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'sign-in');
  await signIn(page, 'alice', 'not the right password', 401);
  await page.getByRole('alert').waitFor();
  t.regex(await page.getByRole('alert').innerText(), /username or password/i);
  t.is(await sidebar(page).count(), 0);
  t.true(await page.getByLabel('Username').isVisible(), 'still on the sign-in page');
  await axeCheck(page, t);
  await screenshot(page, 'sign-in-error');
});

test('the right password shows the sidebar; signing out returns to the sign-in page', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  await sidebar(page).getByText('Patients').waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'home-admin');
  await signOut(page);
  await page.getByLabel('Username').waitFor();
  t.is(await sidebar(page).count(), 0);
  const cookies = await page.context().cookies();
  t.deepEqual(
    cookies.filter((cookie) => cookie.name !== 'ward_device'),
    [],
    'the session cookie is gone',
  );
  t.like(
    cookies.find((cookie) => cookie.name === 'ward_device'),
    { path: '/api/v1/auth/', httpOnly: true, sameSite: 'Strict' },
    'the device cookie stays: the browser is still trusted for alice',
  );
  await page.goto(`${backend.base}/patients`);
  await page.getByLabel('Username').waitFor();
  t.pass('the session is gone: a page behind sign-in asks to sign in again');
});

/** Whether the server still takes the page's session cookie: GET /api/v1/me with it. */
async function sessionStatus(page: Page): Promise<number> {
  const cookie = (await page.context().cookies()).map((found) => `${found.name}=${found.value}`).join('; ');
  return (await fetch(`${backend.base}/api/v1/me`, { headers: { cookie } })).status;
}

test('a session that expires returns the user to sign-in at the next action, then back to the page they were on', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'erin');
  await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
  await page.keyboard.press('Enter');
  const patient = page.getByRole('table').getByRole('link', { name: 'Lovelace, Ada' });
  await tabTo(page, patient);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Lovelace, Ada' }).waitFor();
  const where = new URL(page.url()).pathname;
  t.regex(where, /^\/patients\/\d+$/);
  await tabTo(page, page.getByRole('link', { name: 'Edit' }));
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('textbox', { name: 'Phone', exact: true }));
  await page.keyboard.type('+44 20 7946 0001');

  // The session's time runs out while the page is open (as after 12 hours); the server's cache of
  // it is dropped by the database's notification, which the test waits for rather than guesses.
  await backend
    .knex('base_session')
    .whereIn('user_id', backend.knex('base_user').where({ username: 'erin' }).select('id'))
    .update({ expires_at: new Date(Date.now() - 60_000) });
  await eventually(t, () => sessionStatus(page), 401, 'the server no longer takes the session');

  await tabTo(page, page.getByRole('button', { name: 'Save changes' }));
  await page.keyboard.press('Enter');
  await page.getByLabel('Username').waitFor();
  t.regex(
    await page.getByRole('status').filter({ hasText: 'session' }).innerText(),
    /Your session ended\. Sign in again to continue where you were\./,
  );
  t.is(await sidebar(page).count(), 0, 'nothing of the signed-in page stays');
  t.is(new URL(page.url()).pathname, where, 'the address stays where the user was');
  t.like(await backend.knex('patients_patient').first('phone'), { phone: null }, 'nothing was saved');
  await axeCheck(page, t);
  await screenshot(page, 'session-expired');

  await signIn(page, 'erin');
  await page.getByRole('heading', { name: 'Lovelace, Ada' }).waitFor();
  t.is(new URL(page.url()).pathname, where, 'back on the page the user was on');
  t.deepEqual(await sidebarLabels(page), ['Patients']);
  t.is(await page.getByText('Your session ended').count(), 0);
  await axeCheck(page, t);
  await screenshot(page, 'session-expired-signed-in-again');
});

test("the first admin's Ward-chosen password must be replaced: a short one is refused at its field in a person's words", async (t) => {
  const file = path.join(backend.env.WARD_STORAGE_DIR as string, 'first-admin-password');
  const chosenByWard = (await readFile(file, 'utf8')).trim();
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'admin', chosenByWard);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  t.is(await sidebar(page).count(), 0, 'nothing else is offered before the change');
  await axeCheck(page, t);
  await screenshot(page, 'change-password');

  await tabTo(page, page.getByLabel('Current password'));
  await page.keyboard.type(chosenByWard);
  const next = page.getByLabel('New password');
  await tabTo(page, next);
  await page.keyboard.type('too short');
  await tabTo(page, page.getByLabel('Confirm password'));
  await page.keyboard.type('too short');
  const refused = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/password'));
  await tabTo(page, page.getByRole('button', { name: 'Change password' }));
  await page.keyboard.press('Enter');
  const answer = await refused;
  t.is(answer.status(), 422);
  const { error } = (await answer.json()) as { error: { code: string; message: string } };
  t.is(error.code, 'weak_password');
  const atField = page.locator('#field-newPassword-error');
  await atField.waitFor();
  t.is(
    await atField.innerText(),
    'Choose a password of at least 12 characters, with letters, digits or punctuation you can type (not only spaces).',
    "a person's words, at the field",
  );
  t.regex(error.message, /at least 12 characters/);
  t.is(await next.getAttribute('aria-invalid'), 'true');
  t.regex((await next.getAttribute('aria-describedby')) ?? '', /field-newPassword-error/);
  await focused(t, next, 'the field in error has the focus');
  t.is((await readFile(file, 'utf8')).trim(), chosenByWard, 'the password did not change');
  await axeCheck(page, t);
  await screenshot(page, 'change-password-too-short');

  const mine = 'a passphrase of my own';
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(mine);
  await tabTo(page, page.getByLabel('Confirm password'));
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(mine);
  await tabTo(page, page.getByRole('button', { name: 'Change password' }));
  await page.keyboard.press('Enter');
  await eventually(
    t,
    () => sidebarLabels(page),
    ['Patients', 'Modules', 'Staff', 'Audit'],
    'the admin is in the app',
  );
  await page.getByRole('heading', { name: 'Ward', level: 1 }).waitFor();
  t.regex(await page.locator('.topbar').innerText(), /Signed in as admin/);
  await t.throwsAsync(stat(file), { code: 'ENOENT' }, 'the file with the password Ward chose is gone');
  await axeCheck(page, t);
  await screenshot(page, 'change-password-done');
});

test('when /active fails (the user was disabled after /me answered) the sidebar is empty and a banner says why', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  // The shell asks /me, then /active. Holding /active's request until `ward users disable` has run
  // makes the real backend refuse it (the session is gone) at exactly that point; the request goes
  // out unchanged.
  await page.route('**/api/v1/modules/-/active', async (route) => {
    await backend.cli(['users', 'disable', 'dave']);
    await route.continue();
  });
  const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/modules/-/active'));
  await signIn(page, 'dave');
  t.is((await answer).status(), 401);
  const banner = page.getByRole('alert').filter({ hasText: 'The module list could not be loaded' });
  await banner.waitFor();
  t.regex(await banner.innerText(), /sidebar is empty/);
  t.regex(await banner.innerText(), /Sign out and sign in again/);
  t.deepEqual(await sidebarLabels(page), []);
  await axeCheck(page, t);
  await screenshot(page, 'active-failed');
});

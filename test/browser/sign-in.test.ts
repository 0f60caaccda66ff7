/**
 * Signing in and out through the shell's form, against a real `ward serve`; and what the shell
 * shows when `/api/v1/modules/-/active` fails for real.
 */
import test from 'ava';
import {
  axeCheck,
  launchBrowser,
  screenshot,
  sidebar,
  sidebarLabels,
  signIn,
  startBackend,
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
    ],
  });
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
  await signIn(page, 'alice', 'not the right password');
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
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Username').waitFor();
  t.is(await sidebar(page).count(), 0);
  await page.goto(`${backend.base}/patients`);
  await page.getByLabel('Username').waitFor();
  t.pass('the session is gone: a page behind sign-in asks to sign in again');
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

/**
 * A session left idle: the shell warns before the end with a button that keeps the session, and at
 * the end shows sign-in, which brings the person back to the page they were on. The backend runs
 * with a short WARD_SESSION_IDLE_MINUTES (24 s: the warning comes 12 s before the end).
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import {
  axeCheck,
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

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients'],
    users: [{ username: 'erin', roles: ['receptionist'] }],
    env: { WARD_SESSION_IDLE_MINUTES: '0.4' },
  });
  await backend
    .knex('patients_patient')
    .insert({ mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' });
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

const warning = (page: Page) => page.getByRole('alert').filter({ hasText: 'You will be signed out soon' });

/** Whether the server still takes the page's session cookie (a request that itself uses the session). */
async function sessionStatus(page: Page): Promise<number> {
  const cookie = (await page.context().cookies()).map((found) => `${found.name}=${found.value}`).join('; ');
  return (await fetch(`${backend.base}/api/v1/me`, { headers: { cookie } })).status;
}

test('an idle session is announced, kept by "Stay signed in", then ends at sign-in and comes back to the page', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'erin');
  await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('table').getByRole('link', { name: 'Lovelace, Ada' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Lovelace, Ada' }).waitFor();
  const where = new URL(page.url()).pathname;

  await warning(page).waitFor();
  t.regex(await warning(page).innerText(), /Ward will sign you out at/);
  await axeCheck(page, t);
  await screenshot(page, 'session-idle-warning');
  await tabTo(page, page.getByRole('button', { name: 'Stay signed in' }));
  await page.keyboard.press('Enter');
  await warning(page).waitFor({ state: 'detached' });
  t.is(await page.getByLabel('Username').count(), 0, 'still signed in');

  await warning(page).waitFor();
  await page.getByLabel('Username').waitFor();
  t.regex(
    await page.getByRole('status').filter({ hasText: 'session' }).innerText(),
    /Your session ended\. Sign in again to continue where you were\./,
  );
  t.is(await sidebar(page).count(), 0, 'nothing of the signed-in page stays');
  t.is(new URL(page.url()).pathname, where, 'the address stays where the user was');
  t.is(await sessionStatus(page), 401, 'the server ended the session too');
  await axeCheck(page, t);
  await screenshot(page, 'session-idle-ended');

  await signIn(page, 'erin');
  await page.getByRole('heading', { name: 'Lovelace, Ada' }).waitFor();
  t.is(new URL(page.url()).pathname, where, 'back on the page the user was on');
});

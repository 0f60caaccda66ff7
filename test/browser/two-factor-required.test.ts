/**
 * A clinic that requires two-factor sign-in of admins (WARD_REQUIRE_2FA=admins): an admin without
 * it is sent to set it up after the password, and reaches the shell once it is on.
 */
import test from 'ava';
import { generate } from 'otplib';
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
    users: [{ username: 'alice', roles: ['admin'] }],
    env: { WARD_REQUIRE_2FA: 'admins' },
  });
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

test('an admin without two-factor sign-in must set it up before anything else', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  await page.getByRole('heading', { name: 'Set up two-factor sign-in', level: 1 }).waitFor();
  t.is(await sidebar(page).count(), 0, 'nothing else is offered first');
  await tabTo(page, page.getByRole('button', { name: 'Set up two-factor sign-in' }));
  await page.keyboard.press('Enter');
  const secret = (await page.locator('.totp-secret').innerText()).trim();
  await axeCheck(page, t);
  await screenshot(page, 'two-factor-required');
  await tabTo(page, page.getByLabel('Code from the app'));
  await page.keyboard.type(await generate({ secret }));
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('button', { name: 'I have saved the codes' }));
  await page.keyboard.press('Enter');
  await sidebar(page).first().waitFor();
  t.pass('the shell opens once two-factor sign-in is on');
});

/**
 * Two-factor sign-in in the shell, from the keyboard: setting it up on the account page (QR code,
 * key, a code typed from the "app", recovery codes), then signing in with a code, and with a
 * recovery code. Codes are computed by otplib, as an authenticator app would.
 */
import test from 'ava';
import { generate } from 'otplib';
import {
  axeCheck,
  launchBrowser,
  screenshot,
  sidebar,
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
  backend = await startBackend({ modules: ['patients'], users: [{ username: 'alice', roles: ['admin'] }] });
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

const codeAt = (secret: string, steps: number) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

test('set up on the account page, then sign in with a code from the app and with a recovery code', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  await sidebar(page).first().waitFor();
  await tabTo(page, page.getByRole('link', { name: 'Your account' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
  await tabTo(page, page.getByRole('button', { name: 'Set up two-factor sign-in' }));
  await page.keyboard.press('Enter');
  await page.getByRole('img', { name: /QR code for your authenticator app/ }).waitFor();
  const secret = (await page.locator('.totp-secret').innerText()).trim();
  t.regex(secret, /^[A-Z2-7]+$/);
  await axeCheck(page, t);
  await screenshot(page, 'two-factor-setup');

  await tabTo(page, page.getByLabel('Code from the app'));
  await page.keyboard.type('000000');
  await page.keyboard.press('Enter');
  await page.locator('#field-code-error').waitFor();
  t.regex(await page.locator('#field-code-error').innerText(), /The code is not right/);
  await page.getByLabel('Code from the app').fill('');
  await page.keyboard.type(await codeAt(secret, 0));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: /save your recovery codes/ }).waitFor();
  const codes = (await page.locator('.recovery-codes code').allInnerTexts()).map((code) => code.trim());
  t.is(codes.length, 10);
  await axeCheck(page, t);
  await screenshot(page, 'two-factor-recovery-codes');
  await tabTo(page, page.getByRole('button', { name: 'I have saved the codes' }));
  await page.keyboard.press('Enter');
  await page.getByText(/On\. 10 of your recovery codes are left/).waitFor();

  await signOut(page);
  await signIn(page, 'alice');
  await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
  t.is(await sidebar(page).count(), 0, 'the password alone opens nothing');
  await axeCheck(page, t);
  await screenshot(page, 'two-factor-sign-in');
  await page.keyboard.type(await codeAt(secret, 1));
  await page.keyboard.press('Enter');
  await sidebar(page).first().waitFor();

  await signOut(page);
  await signIn(page, 'alice');
  await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
  await tabTo(page, page.getByRole('button', { name: 'Use a recovery code' }));
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByLabel('Recovery code'));
  await page.keyboard.type(codes[0] as string);
  await page.keyboard.press('Enter');
  await sidebar(page).first().waitFor();
  t.pass('a recovery code signed in');
});

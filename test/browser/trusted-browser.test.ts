/**
 * A browser that signed in before keeps signing in from the clinic's address after someone there
 * has failed 100 times, through the shell's form against a real `ward serve`; a browser new to
 * Ward there is refused, in the server's words.
 */
import test from 'ava';
import { postgresSignInThrottle } from '../../src/auth/throttle-store.ts';
import {
  launchBrowser,
  PASSWORD,
  screenshot,
  sidebar,
  signIn,
  signOut,
  startBackend,
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

test("after 100 failed sign-ins from the clinic's address, the browser alice signed in from before still signs her in; a new browser there is refused", async (t) => {
  const usual = await browser.page(t);
  await usual.goto(backend.base);
  await signIn(usual, 'alice');
  await sidebar(usual).getByText('Patients').waitFor();
  await signOut(usual);
  await usual.getByLabel('Username').waitFor();

  // The page and the backend share the loopback address: these failures shut it for everyone.
  const throttle = postgresSignInThrottle(backend.knex);
  for (let i = 0; i < 100; i++)
    t.true((await throttle.attempt(`throwaway${i}`, '127.0.0.1', null)).allowed, `failure ${i + 1}`);

  const fresh = await browser.page(t);
  await fresh.goto(backend.base);
  await signIn(fresh, 'alice', PASSWORD, 429);
  await fresh.getByRole('alert').waitFor();
  // The person's sentence for a throttled sign-in (the server's words are folded for an administrator).
  t.regex(await fresh.getByRole('alert').innerText(), /too many sign-in attempts/i);
  t.is(await sidebar(fresh).count(), 0);
  await screenshot(fresh, 'sign-in-address-shut');

  await signIn(usual, 'alice');
  await sidebar(usual).getByText('Patients').waitFor();
  t.pass('the browser alice signed in from before signs her in');
});

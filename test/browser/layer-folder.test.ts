/**
 * A layer written as docs/modules.md shows it, `"frontend": "frontend"` (a folder): clinic_portal
 * (test/fixtures/modules/community) names its layer folder, and its page loads from the folder's
 * index.js, as a layer that names its entry file does.
 */
import path from 'node:path';
import test from 'ava';
import { FIXTURES } from '../helpers/cli.ts';
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
    modules: ['clinic_portal'],
    users: [{ username: 'alice', roles: ['admin'] }],
    env: { WARD_MODULE_PATHS: path.join(FIXTURES, 'modules', 'community') },
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

test('a layer named by its folder loads its index.js: the sidebar entry opens the page', async (t) => {
  const page = await browser.page(t);
  const failed: string[] = [];
  page.on('pageerror', (error) => failed.push(error.message));
  await page.goto(backend.base);
  await signIn(page, 'alice');
  await tabTo(page, sidebar(page).filter({ hasText: 'Portal' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Patient portal' }).waitFor();
  t.is(new URL(page.url()).pathname, '/portal');
  t.is(await page.getByRole('alert').count(), 0, 'no error panel');
  t.deepEqual(failed, []);
  await axeCheck(page, t);
  await screenshot(page, 'layer-folder');
});

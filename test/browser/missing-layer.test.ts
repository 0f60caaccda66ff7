/**
 * A module whose layer modules.json lacks (the file was replaced by hand, or copied from another
 * installation, after the backend wrote it at start): its navigation entry is in the sidebar, but
 * its page is a 404 that names the module and the command that fixes it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
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
  backend = await startBackend({ modules: ['patients'], users: [{ username: 'alice', roles: ['admin'] }] });
  // The community fixture clinic_portal ships a layer; installed and restarted into, never synced.
  await backend.cli(['modules', 'install', 'clinic_portal']);
  await backend.cli(['modules', 'restart', '--wait']);
  const file = path.join(backend.env.WARD_FRONTEND_DIR as string, 'modules.json');
  const listed = JSON.parse(await readFile(file, 'utf8')) as { modules: Array<{ name: string }> };
  const modules = listed.modules.filter((module) => module.name !== 'clinic_portal');
  await writeFile(file, `${JSON.stringify({ modules })}\n`);
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

test('the page of a module whose layer modules.json lacks is a 404 naming the module and sync-frontend', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  await tabTo(page, sidebar(page).filter({ hasText: 'Portal' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  const banner = page.getByRole('alert').filter({ hasText: 'clinic_portal' });
  await banner.waitFor();
  const text = await banner.innerText();
  t.regex(text, /The clinic_portal module's pages are not available/);
  t.regex(text, /frontend layer of module clinic_portal .* is not listed in \/modules\.json/s);
  t.regex(text, /Run ward modules sync-frontend on the server/);
  t.is(new URL(page.url()).pathname, '/portal');
  await axeCheck(page, t);
  await screenshot(page, 'missing-layer-404');

  await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Patients' }).waitFor();
  t.is(new URL(page.url()).pathname, '/patients');
  t.pass('the modules whose layers are listed keep working');
});

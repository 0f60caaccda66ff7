/**
 * Layers that fail cost only their own pages: broken_layer's page throws as it renders and
 * crash_import's layer throws as it is imported (fixtures in test/fixtures/modules/frontend-broken,
 * found through WARD_MODULE_PATHS). Each page shows an error panel naming the module and the
 * error; the sidebar and the patients pages keep working.
 */
import path from 'node:path';
import test from 'ava';
import { FIXTURES } from '../helpers/cli.ts';
import {
  axeCheck,
  launchBrowser,
  screenshot,
  sidebar,
  sidebarLabels,
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
    modules: ['patients', 'broken_layer', 'crash_import'],
    users: [{ username: 'alice', roles: ['admin'] }],
    env: {
      WARD_MODULE_PATHS: [
        path.join(FIXTURES, 'modules', 'community'),
        path.join(FIXTURES, 'modules', 'frontend-broken'),
      ].join(':'),
    },
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

test('a layer whose page throws, or that throws on import, shows an error panel on its own pages only', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  const labels = await sidebarLabels(page);
  for (const label of ['Patients', 'Broken page', 'Crashing layer']) t.true(labels.includes(label), label);

  await tabTo(page, sidebar(page).filter({ hasText: 'Broken page' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: "The broken_layer module's page failed" }).waitFor();
  const thrown = page.getByRole('alert').filter({ hasText: 'broken_layer' });
  t.regex(await thrown.innerText(), /Module broken_layer: the chart library is not loaded/);
  t.regex(await thrown.innerText(), /Other pages keep working/);
  t.is(new URL(page.url()).pathname, '/broken');
  t.deepEqual(await sidebarLabels(page), labels, 'the sidebar stays');
  await axeCheck(page, t);
  await screenshot(page, 'broken-layer-render');

  await tabTo(page, sidebar(page).filter({ hasText: 'Crashing layer' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: "The crash_import module's page failed" }).waitFor();
  const crashed = page.getByRole('alert').filter({ hasText: 'crash_import' });
  t.regex(
    await crashed.innerText(),
    /Module crash_import: crash_import layer failed to start: no configuration/,
  );
  await axeCheck(page, t);
  await screenshot(page, 'broken-layer-import');

  await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
  await page.keyboard.press('Enter');
  await page.getByText('No patients yet').waitFor();
  t.is(await page.getByRole('alert').count(), 0, 'no error panel on the patients page');
  await axeCheck(page, t);
  await screenshot(page, 'broken-layer-patients');
});

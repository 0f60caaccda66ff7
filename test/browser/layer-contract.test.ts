/**
 * The layer contract as the shell enforces it: future_sdk's layer (test/fixtures/modules/
 * frontend-contract, found through WARD_MODULE_PATHS) needs shell SDK ^9.0.0, so its page shows
 * an error panel naming the module and both versions while the patients pages work; and when
 * modules.json changes under a signed-in user, the next navigation brings a banner whose Reload
 * button loads the new list.
 */
import { readFile, writeFile } from 'node:fs/promises';
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
    modules: ['patients', 'future_sdk'],
    users: [{ username: 'alice', roles: ['admin'] }],
    env: {
      WARD_MODULE_PATHS: [
        path.join(FIXTURES, 'modules', 'community'),
        path.join(FIXTURES, 'modules', 'frontend-contract'),
      ].join(':'),
    },
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

const modulesJson = () => path.join(backend.env.WARD_FRONTEND_DIR!, 'modules.json');

// Serial: the second test rewrites modules.json, which the first test's page reads.
test.serial('a layer that needs another shell SDK shows an error panel on its own pages only', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  const labels = await sidebarLabels(page);
  for (const label of ['Patients', 'Future page']) t.true(labels.includes(label), label);

  await tabTo(page, sidebar(page).filter({ hasText: 'Future page' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: "The future_sdk module's page failed" }).waitFor();
  const panel = page.getByRole('alert').filter({ hasText: 'future_sdk' });
  t.regex(
    await panel.innerText(),
    /Module future_sdk: the layer needs shell SDK \^9\.0\.0, and this shell has 1\.\d+\.\d+/,
  );
  t.false(await page.getByText('This page needs shell SDK 9.').isVisible(), 'the layer never rendered');
  t.is(new URL(page.url()).pathname, '/future');
  t.deepEqual(await sidebarLabels(page), labels, 'the sidebar stays');
  await axeCheck(page, t);
  await screenshot(page, 'layer-contract-sdk');

  await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
  await page.keyboard.press('Enter');
  await page.getByText('No patients yet').waitFor();
  t.is(await page.getByRole('alert').count(), 0, 'no error panel on the patients page');
  await axeCheck(page, t);
});

test.serial(
  'a change of modules.json brings, at the next navigation, a banner whose Reload loads it',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'alice');
    await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
    await page.keyboard.press('Enter');
    await page.getByText('No patients yet').waitFor();
    const banner = page.getByText('The installed modules changed');
    t.is(await banner.count(), 0, 'no banner while modules.json is as loaded');

    const original = await readFile(modulesJson(), 'utf8');
    t.teardown(() => writeFile(modulesJson(), original));
    const listed = JSON.parse(original) as { modules: Array<{ name: string }> };
    t.true(listed.modules.some((entry) => entry.name === 'future_sdk'));
    await writeFile(
      modulesJson(),
      JSON.stringify({ ...listed, modules: listed.modules.filter((entry) => entry.name !== 'future_sdk') }),
    );

    // A navigation inside the app (no reload): the shell checks modules.json again.
    await tabTo(page, page.getByRole('link', { name: 'New patient' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New patient' }).waitFor();
    await banner.waitFor();
    const reload = page.getByRole('button', { name: 'Reload' });
    await axeCheck(page, t);
    await screenshot(page, 'layer-contract-changed');

    // A mark in the page's globals: a reload starts a fresh document, without it.
    await page.evaluate(() => Object.assign(globalThis, { wardTestMark: true }));
    await tabTo(page, reload);
    await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
    await page.getByRole('heading', { name: 'New patient' }).waitFor();
    t.false(await page.evaluate(() => 'wardTestMark' in globalThis), 'the page was reloaded');
    t.is(await banner.count(), 0, 'no banner after the reload');

    // The reloaded shell loaded the new list: future_sdk's layer is no longer listed.
    await tabTo(page, sidebar(page).filter({ hasText: 'Future page' }));
    await page.keyboard.press('Enter');
    await page.getByText("The future_sdk module's pages are not available").waitFor();
    await axeCheck(page, t);
    await screenshot(page, 'layer-contract-reloaded');
  },
);

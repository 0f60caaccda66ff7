/**
 * The shell links and routes only to paths of this site: a navigation entry whose path holds a
 * tab (which a browser drops, so "/<tab>/host/x" leads to //host/x) is left out of the sidebar, a
 * layer route with one is refused like any broken layer, and a layer's navigate() to one throws.
 * The answers are rewritten in the browser (page.route), as a backend that let one through would
 * send them: Ward's own manifests cannot hold such a path.
 */
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { FIXTURES } from '../helpers/cli.ts';
import {
  launchBrowser,
  screenshot,
  sidebarLabels,
  signIn,
  startBackend,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

const ESCAPE = '/\t/127.0.0.1:9/x';

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

/** clinic_portal's layer, replaced in this page by `source`. */
async function layerIs(page: Page, source: string): Promise<void> {
  await page.route('**/layers/clinic_portal/frontend/index.js', (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: source }),
  );
}

test('a navigation entry whose path holds a tab is not in the sidebar', async (t) => {
  const page = await browser.page(t);
  await page.route('**/api/v1/modules/-/active', async (route) => {
    const answer = await route.fetch();
    const body = (await answer.json()) as { navigation: object[] };
    const evil = {
      module: 'clinic_portal',
      label: 'Elsewhere',
      path: ESCAPE,
      permission: 'clinic_portal.access',
      order: 1,
    };
    await route.fulfill({ response: answer, json: { ...body, navigation: [evil, ...body.navigation] } });
  });
  await page.goto(backend.base);
  await signIn(page, 'alice');
  const labels = await sidebarLabels(page);
  t.true(labels.includes('Portal'), labels.join(', '));
  t.false(labels.includes('Elsewhere'));
  t.is(await page.locator('a[href*="127.0.0.1:9"]').count(), 0, 'no link anywhere on the page');
});

test('a layer route whose path holds a tab is refused, naming the rule, on its own pages only', async (t) => {
  const page = await browser.page(t);
  await layerIs(
    page,
    `export default { sdk: '^1.0.0', routes: [{ path: ${JSON.stringify(`/portal${ESCAPE}`)}, render() {} }] };`,
  );
  await page.goto(`${backend.base}/portal`);
  await signIn(page, 'alice');
  await page.getByRole('heading', { name: "The clinic_portal module's page failed" }).waitFor();
  t.regex(
    await page.getByText(/^Module clinic_portal: each route of the layer needs a `path`/).innerText(),
    /without spaces or control characters/,
  );
  await screenshot(page, 'shell-paths-route');
});

test("a layer's navigate() to a path with a tab throws and the page stays on this site", async (t) => {
  const page = await browser.page(t);
  await layerIs(
    page,
    `export default { sdk: '^1.0.0', routes: [{ path: '/portal', render(element, context) {
        try { context.navigate(${JSON.stringify(ESCAPE)}); element.textContent = 'navigated'; }
        catch (error) { element.textContent = error.message; }
      } }] };`,
  );
  await page.goto(`${backend.base}/portal`);
  await signIn(page, 'alice');
  await page.getByText(/^navigate\(.*\) refused: give a path of this site/).waitFor();
  t.is(new URL(page.url()).origin, backend.base);
  t.is(new URL(page.url()).pathname, '/portal');
});

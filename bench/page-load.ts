/**
 * How long the web frontend takes to be usable, in Debian's Chromium against a real `ward serve`:
 * a fresh browser context (no cache, no cookies) opens `/` until the sign-in button shows, and a
 * signed-in one opens `/patients` until its list shows (shell, /me, /active, the layer and its
 * first API call). The baseline, measured in the same run, is the same browser opening the
 * backend's `/health` JSON: what a page costs before any of Ward's frontend runs.
 */
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, sidebar, signIn, startBackend } from '../test/browser/helpers.ts';
import { median, ratio } from './lib.ts';

const ROUNDS = 7;

async function timed(browser: Browser, work: (page: Page) => Promise<void>): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const started = performance.now();
    await work(page);
    return performance.now() - started;
  } finally {
    await context.close();
  }
}

const backend = await startBackend({
  modules: ['patients'],
  users: [{ username: 'alice', roles: ['admin'] }],
});
const launched = await launchBrowser();
try {
  const { browser } = launched;
  const health = `${backend.base}/health`;
  const healthPage: number[] = [];
  const signInPage: number[] = [];
  const patients: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    healthPage.push(await timed(browser, (page) => page.goto(health).then(() => undefined)));
    signInPage.push(
      await timed(browser, async (page) => {
        await page.goto(backend.base);
        await page.getByRole('button', { name: 'Sign in' }).waitFor();
      }),
    );
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(backend.base);
    await signIn(page, 'alice');
    await sidebar(page).first().waitFor();
    const started = performance.now();
    await page.goto(`${backend.base}/patients`);
    await page.getByRole('heading', { name: 'Patients' }).waitFor();
    patients.push(performance.now() - started);
    await context.close();
  }
  const baseline = median(healthPage);
  // One line each in the form the results table takes up (`… -> ratio`); no target, reported only.
  const report = (label: string, values: number[]) =>
    console.log(
      `${label}: ${median(values).toFixed(0)} ms, /health in a fresh context ${baseline.toFixed(0)} ms -> ${ratio(median(values), baseline)} (median of ${ROUNDS}; reported, no target)`,
    );
  report('sign-in page, fresh context', signInPage);
  report('patients list, signed in', patients);
} finally {
  await launched.close();
  await backend.stop();
}

/**
 * The sign-in page loads without the signed-in shell, which is a chunk of its own: a fresh
 * visitor's first page fetches none of it, typing into the form starts it, and a shell that cannot
 * be fetched says so where the person can try again.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { ROOT } from '../../src/config.ts';
import {
  launchBrowser,
  screenshot,
  sidebar,
  signIn,
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

/** The built shell chunk's path, as the browser asks for it. */
async function shellChunk(): Promise<string> {
  const manifest = JSON.parse(
    await readFile(path.join(ROOT, 'frontend', 'dist', '.vite', 'manifest.json'), 'utf8'),
  ) as Record<string, { file: string }>;
  const chunk = manifest['src/shell.js'];
  if (chunk === undefined) throw new Error('the build has no src/shell.js chunk: run npm run build:frontend');
  return `/${chunk.file}`;
}

test('a fresh sign-in page fetches no signed-in shell; signing in loads it and shows the sidebar', async (t) => {
  const shell = await shellChunk();
  const page = await browser.page(t);
  const paths: string[] = [];
  page.on('request', (request) => paths.push(new URL(request.url()).pathname));
  await page.goto(backend.base);
  await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  t.false(paths.includes(shell), 'the sign-in page draws without the shell');
  await signIn(page, 'alice');
  await sidebar(page).first().waitFor();
  t.true(paths.includes(shell), 'the shell loaded with the sign-in');
});

test('a signed-in shell that cannot be fetched shows "Ward is not answering"; Try again reloads into it', async (t) => {
  const shell = await shellChunk();
  const page = await browser.page(t);
  await page.route(`**${shell}`, (route) => route.abort('connectionrefused'));
  await page.goto(backend.base);
  await signIn(page, 'alice');
  await page.getByRole('heading', { name: 'Ward is not answering' }).waitFor();
  t.is(await sidebar(page).count(), 0);
  await screenshot(page, 'sign-in-shell-unreachable');
  await page.unroute(`**${shell}`);
  await page.getByRole('button', { name: 'Try again' }).click();
  await sidebar(page).first().waitFor();
  t.pass();
});

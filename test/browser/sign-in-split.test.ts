/**
 * The sign-in page loads without the signed-in shell, which is a chunk of its own: a fresh
 * visitor's first page fetches none of it (nor the shell's part of the English catalogues, nor
 * the message formatter), typing into the form starts it, and a shell that cannot be fetched says
 * so in a person's words where the person can try again.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { ROOT } from '../../src/config.ts';
import {
  anmelden,
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

/** A built chunk's path, as the browser asks for it: the shell's by default. */
async function shellChunk(key = 'src/shell.js'): Promise<string> {
  const manifest = JSON.parse(
    await readFile(path.join(ROOT, 'frontend', 'dist', '.vite', 'manifest.json'), 'utf8'),
  ) as Record<string, { file: string }>;
  const chunk = manifest[key];
  if (chunk === undefined) throw new Error(`the build has no ${key} chunk: run npm run build:frontend`);
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
  t.false(paths.includes(await shellChunk('src/ui/shell-catalogue.js')), "nor the shell's English");
  t.false(
    paths.includes(await shellChunk('../node_modules/intl-messageformat/index.js')),
    'nor the formatter',
  );
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
  const alert = page.getByRole('alert');
  t.true(await alert.getByText('Part of Ward could not be loaded.').isVisible());
  // The browser's own words are for an administrator: folded away, not in the person's sentence.
  const details = alert.locator('details');
  t.regex((await details.textContent()) ?? '', /shell_unavailable: .*(dynamically imported module|import)/i);
  t.false(await details.getByText(/dynamically imported module/i).isVisible());
  await screenshot(page, 'sign-in-shell-unreachable');
  await page.unroute(`**${shell}`);
  await page.getByRole('button', { name: 'Try again' }).click();
  await sidebar(page).first().waitFor();
  t.pass();
});

test('a German browser hears of a shell that cannot be fetched in German', async (t) => {
  const shell = await shellChunk();
  const page = await browser.page(t, { locale: 'de-DE' });
  await page.route(`**${shell}`, (route) => route.abort('connectionrefused'));
  await page.goto(backend.base);
  await page.getByRole('heading', { name: 'Bei Ward anmelden' }).waitFor();
  await anmelden(page, 'alice');
  await page.getByRole('heading', { name: 'Ward antwortet nicht' }).waitFor();
  t.true(await page.getByText('Ein Teil von Ward konnte nicht geladen werden.').isVisible());
  t.false(await page.getByText(/dynamically imported module/i).isVisible());
  await screenshot(page, 'sign-in-shell-unreachable-de');
});

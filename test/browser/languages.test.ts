/**
 * Languages in a real browser: a de-DE browser gets the shell in German (sign-in, the server's
 * refusals in German, `<html lang="de">`, German dates on a layer's page), an en-US one in English,
 * the practitioner administration page in German, and the language chooser overrides the browser's
 * language, remembered across reloads. A browser fetches only the catalogues of its language,
 * draws German from its first frame, and fetches the ICU parser only with the module layers.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import {
  anmelden,
  axeCheck,
  launchBrowser,
  screenshot,
  startBackend,
  tabTo,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';
import { ROOT } from '../../src/config.ts';

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients', 'appointments'],
    users: [
      { username: 'rita', roles: ['receptionist'] },
      { username: 'ada', roles: ['admin'] },
    ],
  });
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

const htmlLang = (page: Page) => page.locator('html').getAttribute('lang');

/** The built files (`/assets/…`) of the German catalogues and of the ICU parser, from Vite's manifest. */
async function lazyFiles(): Promise<{ german: string[]; parser: string }> {
  const manifest = JSON.parse(
    await readFile(path.join(ROOT, 'frontend', 'dist', '.vite', 'manifest.json'), 'utf8'),
  ) as Record<string, { file: string }>;
  const file = (key: string) => {
    const chunk = manifest[key];
    if (chunk === undefined) throw new Error(`the frontend build has no chunk for ${key}`);
    return `/${chunk.file}`;
  };
  return {
    german: [file('src/locales/de.js'), file('src/ui/messages.de.js')],
    parser: file('../node_modules/@formatjs/icu-messageformat-parser/index.js'),
  };
}

/** Records, in the page, the shell's text each time it changes (`window.wardFrames`), until sign-in shows. */
const RECORD_FRAMES = `
  window.wardFrames = [];
  const observer = new MutationObserver(() => {
    const text = document.getElementById('app')?.textContent ?? '';
    if (text.trim() === '' || window.wardFrames.at(-1) === text) return;
    window.wardFrames.push(text);
    if (text.includes('Anmelden') || text.includes('Sign in')) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
`;

test('a de-DE browser signs in in German, hears refusals in German and sees German dates', async (t) => {
  const page = await browser.page(t, { locale: 'de-DE' });
  await page.goto(backend.base);
  await page.getByRole('heading', { name: 'Bei Ward anmelden' }).waitFor();
  t.true(await page.getByRole('button', { name: 'Anmelden', exact: true }).isVisible());
  t.is(await htmlLang(page), 'de');
  await axeCheck(page, t);
  await screenshot(page, 'languages-sign-in-de');

  await anmelden(page, 'rita', 'not the right password', 401);
  await page.getByRole('alert').waitFor();
  const alert = await page.getByRole('alert').innerText();
  t.regex(alert, /Anmeldung fehlgeschlagen/);
  t.regex(alert, /Benutzername oder Passwort stimmen nicht/);
  await screenshot(page, 'languages-refused-de');

  await page.getByLabel('Passwort').fill('');
  await anmelden(page, 'rita');
  await page.getByRole('button', { name: 'Abmelden' }).waitFor();
  t.regex(await page.locator('.topbar').innerText(), /Angemeldet als rita/);
  const sidebar = page.getByRole('navigation', { name: 'Module' }).getByRole('link');
  t.deepEqual(
    await sidebar.allInnerTexts(),
    ['Patienten', 'Termine'],
    "the layers' own words in the sidebar",
  );

  // A layer's own catalogue, and @ward/ui's words, at a form's required fields.
  await page.goto(`${backend.base}/patients/new`);
  await page.getByRole('heading', { name: 'Neue Patientin / neuer Patient' }).waitFor();
  await page.getByRole('button', { name: 'Patient/in anlegen' }).click();
  await page.getByText('Füllen Sie dieses Feld aus.').first().waitFor();
  // Ward assigns the MRN unless the box is unticked: the names are what must be filled.
  t.is(await page.getByText('Füllen Sie dieses Feld aus.').count(), 2, 'Nachname and Vorname');
  await axeCheck(page, t);
  await screenshot(page, 'languages-new-patient-de');

  await page.goto(`${backend.base}/appointments?date=2026-11-23&view=week`);
  await page
    .getByText(/Montag, 23\. November 2026/)
    .first()
    .waitFor();
  t.true(
    await page
      .getByText(/Sonntag, 29\. November 2026/)
      .first()
      .isVisible(),
  );
  await axeCheck(page, t);
  await screenshot(page, 'languages-week-de');
});

test('an en-US browser gets English, and the chooser switches the language for good', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });
  await signInButton.waitFor();
  t.is(await htmlLang(page), 'en');

  await page.getByLabel('Language').selectOption('de');
  await page.getByRole('button', { name: 'Anmelden', exact: true }).waitFor();
  t.is(await htmlLang(page), 'de');
  await page.reload();
  await page.getByRole('button', { name: 'Anmelden', exact: true }).waitFor();
  t.is(await htmlLang(page), 'de', 'the choice outlives a reload');
  await axeCheck(page, t);

  await anmelden(page, 'rita');
  await page.getByRole('button', { name: 'Abmelden' }).waitFor();
  await screenshot(page, 'languages-home-de');
  await page.getByLabel('Sprache').selectOption('en');
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
  t.is(await htmlLang(page), 'en');
  await page.goto(`${backend.base}/appointments?date=2026-11-23&view=week`);
  await page
    .getByText(/Monday, November 23, 2026/)
    .first()
    .waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'languages-week-en');
});

test('a de-DE administrator manages practitioners in German, from the sidebar entry to the edit form', async (t) => {
  const page = await browser.page(t, { locale: 'de-DE' });
  await page.goto(backend.base);
  await anmelden(page, 'ada');
  await page.getByRole('button', { name: 'Abmelden' }).waitFor();
  const entry = page
    .getByRole('navigation', { name: 'Module' })
    .getByRole('link')
    .filter({ hasText: /^Behandelnde$/ });
  await tabTo(page, entry);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Behandelnde', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Behandler/in anlegen' }).waitFor();

  await page.getByLabel('Name').fill('Dr. Jürgen Müller');
  await page.getByLabel('Fachrichtung').fill('Allgemeinmedizin');
  await page.getByRole('button', { name: 'Behandler/in anlegen' }).click();
  await page.getByText('Dr. Jürgen Müller wurde angelegt.').waitFor();
  const table = page.getByRole('table', { name: 'Behandelnde' });
  await table.getByRole('cell', { name: 'Dr. Jürgen Müller', exact: true }).waitFor();
  t.deepEqual(
    (await table.getByRole('columnheader').allInnerTexts()).map((header) => header.trim()),
    ['Name', 'Fachrichtung', 'Meldet sich an als', 'Status', 'Aktionen'],
  );
  t.true(await table.getByRole('cell', { name: 'Aktiv', exact: true }).isVisible());

  // The same name, but for accents and punctuation: the server's refusal, in German.
  await page.getByLabel('Name').fill('dr jurgen muller');
  await page.getByRole('button', { name: 'Behandler/in anlegen' }).click();
  const refusal = page
    .getByRole('alert')
    .filter({ hasText: 'Die Behandlerin oder der Behandler wurde nicht angelegt' });
  await refusal.waitFor();
  t.regex(await refusal.innerText(), /dieses Namens ist schon in Ward/);
  await axeCheck(page, t);
  await screenshot(page, 'languages-practitioners-de');

  await table.getByRole('link', { name: 'Dr. Jürgen Müller bearbeiten' }).click();
  await page.getByRole('heading', { name: 'Dr. Jürgen Müller bearbeiten', level: 1 }).waitFor();
  t.true(await page.getByRole('button', { name: 'Änderungen speichern' }).isVisible());
  t.true(await page.getByRole('button', { name: 'Behandler/in löschen' }).isVisible());
  t.deepEqual(await page.getByLabel('Status').locator('option').allInnerTexts(), ['Aktiv', 'Inaktiv']);
  await axeCheck(page, t);
  await screenshot(page, 'languages-practitioner-edit-de');
});

test('a browser fetches only its language, draws German from the first frame, and the parser with the layers', async (t) => {
  const { german, parser } = await lazyFiles();
  const fetched = (page: Page) => {
    const paths: string[] = [];
    page.on('request', (request) => paths.push(new URL(request.url()).pathname));
    return paths;
  };

  const english = await browser.page(t);
  const englishPaths = fetched(english);
  await english.goto(backend.base);
  await english.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  t.deepEqual(
    englishPaths.filter((file) => german.includes(file) || file === parser),
    [],
    'an English sign-in page fetches neither German nor the parser',
  );

  const page = await browser.page(t, { locale: 'de-DE' });
  const paths = fetched(page);
  await page.addInitScript({ content: RECORD_FRAMES });
  await page.goto(backend.base);
  await page.getByRole('button', { name: 'Anmelden', exact: true }).waitFor();
  const frames = (await page.evaluate('window.wardFrames')) as string[];
  t.true(frames.at(-1)?.includes('Anmelden'), `the sign-in page is German: ${frames.join(' | ')}`);
  t.deepEqual(
    frames.filter((text) => /Sign in|Loading|Username/.test(text)),
    [],
    'no frame before it is English',
  );
  t.deepEqual(
    german.filter((file) => !paths.includes(file)),
    [],
    'a German browser fetches the German catalogues',
  );
  t.false(paths.includes(parser), 'the sign-in page needs no ICU parser');

  const parserFetched = page.waitForRequest((request) => new URL(request.url()).pathname === parser);
  await anmelden(page, 'rita');
  await parserFetched;
  await page.getByRole('link', { name: 'Patienten' }).first().waitFor();
  await screenshot(page, 'languages-lazy-home-de');
});

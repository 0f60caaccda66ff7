/**
 * The import wizard in German, with the real Synthea CSV export: a de-DE administrator uploads,
 * validates and executes the patients, previews the encounters and reads the practitioner notice
 * and its Map control in German, then maps a name to a practitioner Ward has. Axe on the notice.
 */
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { FIXTURES } from '../helpers/cli.ts';
import {
  anmelden,
  axeCheck,
  launchBrowser,
  screenshot,
  startBackend,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

const EXPORT = path.join(FIXTURES, 'synthea-export');

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['migration_import'],
    users: [{ username: 'ada', roles: ['admin'] }],
  });
  await backend.knex('appointments_practitioner').insert({ name: 'Dr. Mei Cho', folded_name: 'dr mei cho' });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

const stateHeading = (page: Page, state: string) => page.getByRole('heading', { name: `Zustand: ${state}` });

/** Uploads and validates a file of the export through the German wizard. */
async function hochgeladen(page: Page, file: string): Promise<void> {
  await page.goto(`${backend.base}/migration_import/new`);
  await page.getByLabel('Quelldatei').setInputFiles(path.join(EXPORT, file));
  await page.getByRole('textbox', { name: 'Quellsystem' }).fill('synthea');
  await page.getByRole('button', { name: 'Hochladen' }).click();
  await stateHeading(page, 'Hochgeladen').waitFor();
  await page.getByRole('button', { name: 'Prüfen', exact: true }).click();
  await stateHeading(page, 'Geprüft').waitFor();
}

test('a de-DE administrator reads the practitioner notice in German and maps a name', async (t) => {
  const page = await browser.page(t, { locale: 'de-DE' });
  await page.goto(backend.base);
  await anmelden(page, 'ada');
  await page.getByRole('button', { name: 'Abmelden' }).waitFor();

  await hochgeladen(page, 'patients.csv');
  await page.getByRole('button', { name: 'Ausführen', exact: true }).click();
  await stateHeading(page, 'Erfolgreich').waitFor();
  t.true(await page.getByRole('heading', { name: 'Ergebnisse' }).isVisible());

  await hochgeladen(page, 'encounters.csv');
  t.true(await page.getByRole('heading', { name: 'Vorschau', level: 2 }).isVisible());
  await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
  const notice = page.getByRole('status').filter({ hasText: 'Die Ausführung würde 28 Behandelnde anlegen:' });
  await notice.waitFor();
  const busiest = '525a0801-63c7-328c-a95d-bc0f8bee79cc';
  const item = notice.locator('li').filter({ hasText: busiest });
  t.regex(await item.innerText(), /43 Termine/);
  t.regex(await notice.innerText(), /Der Name bleibt als ihr Alias erhalten/);
  await axeCheck(page, t);
  await screenshot(page, 'languages-import-notice-de');

  await item.getByLabel(`${busiest} buchen bei`).selectOption({ label: 'Dr. Mei Cho' });
  await item.getByRole('button', { name: 'Zuordnen' }).click();
  const matched = page
    .getByRole('status')
    .filter({ hasText: 'Die Ausführung würde 27 Behandelnde anlegen:' });
  await matched.waitFor();
  t.regex(await matched.innerText(), /bei diesen vorhandenen Behandelnden gebucht/);
  t.regex(await matched.innerText(), new RegExp(`"${busiest}" → Dr\\. Mei Cho: 43 Termine`));
  await axeCheck(page, t);
});

/**
 * Real Synthea output through the import wizard, then the appointments week view: a FHIR Bundle
 * names its practitioners ("Dr. Lorenza655 Ziemann98"), and the imported visits show those names
 * in the week grid, not a UUID or an NPI. The week is reached by its address, as a bookmark would;
 * a de-DE browser reads the same week with German dates.
 */
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { FIXTURES } from '../helpers/cli.ts';
import {
  anmelden,
  axeCheck,
  importState,
  launchBrowser,
  screenshot,
  signIn,
  startBackend,
  uploadAndValidate,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

/** Blaine377 Hickle134: six visits with Dr. Kelsie51 Strosin214 and Dr. Lorenza655 Ziemann98. */
const EXPORT = path.join(FIXTURES, 'synthea-export');
const BUNDLE = path.join(EXPORT, 'fhir', 'Blaine377_Hickle134_92b47f6e-d4b0-47bd-bf6a-b944d4de48e6.json');

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['migration_import'],
    users: [{ username: 'ada', roles: ['admin'] }],
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Each entry of the week grid, as one line: time, patient, practitioner, reason, status. */
const entries = async (page: Page) =>
  (await page.locator('.appointments-grid .appointment-entry').allInnerTexts()).map((text) =>
    text.replace(/\s+/g, ' ').trim(),
  );

/** Anything that looks like an id rather than a name: a UUID, or a run of digits (an NPI). */
const ID_LIKE = /[0-9a-f]{8}-[0-9a-f]{4}-|\d{6,}|Practitioner\?/;

test.serial(
  'a FHIR Bundle imported through the wizard shows its practitioners by name in the week view',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'ada');
    await page.getByRole('navigation', { name: 'Modules' }).waitFor();
    await uploadAndValidate(page, backend.base, BUNDLE);
    await page.getByRole('button', { name: 'Execute' }).click();
    await importState(page, 'Succeeded').waitFor();
    t.deepEqual(
      await backend.knex('appointments_practitioner').orderBy('name').pluck('name'),
      ['Dr. Kelsie51 Strosin214', 'Dr. Lorenza655 Ziemann98'],
      'the practitioners are records named as the Bundle names them',
    );

    // 2016-07-24 09:43 at -04:00: a Sunday in a UTC browser, the last day of the week of July 18.
    await page.goto(`${backend.base}/appointments?date=2016-07-24&view=week`);
    await page.getByRole('table', { name: 'Appointments in the week of Monday, July 18, 2016' }).waitFor();
    await page.locator('.appointments-grid .appointment-entry').first().waitFor();
    t.deepEqual(await entries(page), [
      '01:43 PM–01:58 PM Hickle134, Blaine377 Dr. Lorenza655 Ziemann98 Viral sinusitis (disorder) Fulfilled',
    ]);
    t.false(ID_LIKE.test(await page.locator('.appointments-grid').innerText()), 'no id in the grid');
    await axeCheck(page, t);
    await screenshot(page, 'import-week-practitioners');

    // Another week, reached with the week grid's own button from a bookmarked address.
    await page.goto(`${backend.base}/appointments?date=2014-07-03&view=week`);
    await page.getByText('No appointments this week').waitFor();
    await page
      .getByText(/Week of Monday, June 30, 2014 to Sunday, July 6, 2014/)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Next week' }).click();
    await page.getByRole('table', { name: 'Appointments in the week of Monday, July 7, 2014' }).waitFor();
    await page.locator('.appointments-grid .appointment-entry').first().waitFor();
    t.deepEqual(await entries(page), [
      '04:43 AM–04:58 AM Hickle134, Blaine377 Dr. Kelsie51 Strosin214 General examination of patient (procedure) Fulfilled',
    ]);
    t.is(new URL(page.url()).search, '?date=2014-07-10&view=week', 'the week shown is in the address');
  },
);

test.serial('a de-DE browser reads the imported week with German dates and the same names', async (t) => {
  const page = await browser.page(t, { locale: 'de-DE' });
  await page.goto(`${backend.base}/appointments?date=2016-07-24&view=week`);
  await anmelden(page, 'ada');
  await page.getByRole('table', { name: 'Termine in der Woche ab Montag, 18. Juli 2016' }).waitFor();
  await page.locator('.appointments-grid .appointment-entry').first().waitFor();
  t.deepEqual(await entries(page), [
    '13:43–13:58 Hickle134, Blaine377 Dr. Lorenza655 Ziemann98 Viral sinusitis (disorder) Erledigt',
  ]);
  t.deepEqual((await page.locator('.appointments-grid thead th').allInnerTexts()).slice(0, 2), [
    'Uhrzeit',
    'Mo., 18. Juli',
  ]);
  await axeCheck(page, t);
  await screenshot(page, 'import-week-practitioners-de');
});

test.serial(
  'after the CSV export, whose practitioners are provider ids, the Bundle names them in the week view',
  async (t) => {
    const csvFirst = await startBackend({
      modules: ['migration_import'],
      users: [{ username: 'ada', roles: ['admin'] }],
    });
    t.teardown(() => csvFirst.stop());
    const page = await browser.page(t);
    await page.goto(csvFirst.base);
    await signIn(page, 'ada');
    await page.getByRole('navigation', { name: 'Modules' }).waitFor();
    for (const file of ['patients.csv', 'encounters.csv', BUNDLE]) {
      await uploadAndValidate(page, csvFirst.base, path.isAbsolute(file) ? file : path.join(EXPORT, file));
      await page.getByRole('button', { name: 'Execute' }).click();
      await importState(page, 'Succeeded').waitFor();
    }
    await page.goto(`${csvFirst.base}/appointments?date=2016-07-24&view=week`);
    await page.getByRole('table', { name: 'Appointments in the week of Monday, July 18, 2016' }).waitFor();
    await page.locator('.appointments-grid .appointment-entry').first().waitFor();
    t.deepEqual(await entries(page), [
      '01:43 PM–01:58 PM Hickle134, Blaine377 Dr. Lorenza655 Ziemann98 Viral sinusitis (disorder) Fulfilled',
    ]);
    await screenshot(page, 'import-week-csv-then-bundle');
  },
);

/**
 * The patient search and chart in a de-DE browser: search as you type, ignoring accents and
 * punctuation, kept in the address through reload and Back; the chart's contact, address and
 * panels in German with the birth date written the German way, edited at ?edit=1; registration
 * warns of a probable duplicate in German and Ward assigns the MRN; the chart prints without the
 * shell and fits 390 px.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { insertPatients } from '../modules/helpers.ts';
import {
  axeCheck,
  eventually,
  germanPage,
  launchBrowser,
  screenshot,
  startBackend,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;
let mullerId: number;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['appointments', 'documents'],
    users: [
      { username: 'rita', roles: ['receptionist'] },
      { username: 'cleo', roles: ['clinician'] },
    ],
  });
  [mullerId] = (await insertPatients(backend.knex, [
    {
      mrn: 'MRN-0042',
      family_name: 'Müller',
      given_name: 'Jürgen',
      birth_date: '1984-03-07',
      phone: '+49 30 1234567',
      email: 'juergen@example.org',
      address: JSON.stringify({
        line: ['Hauptstraße 5'],
        city: 'Berlin',
        postalCode: '10115',
        country: 'DE',
      }),
    },
    { mrn: 'MRN-0043', family_name: "O'Brien", given_name: 'Siobhán', birth_date: '1990-07-03' },
    // Registered again by the duplicate test, which runs beside the search test: no search finds her.
    { mrn: 'MRN-0045', family_name: 'Ōtsuka', given_name: 'Hanako', birth_date: '2001-05-05' },
  ])) as [number];
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Name and birth date of each row of the list captioned `caption`. */
const rows = (page: Page, caption: string) => async () => {
  const table = page.getByRole('table', { name: caption });
  await table.waitFor();
  return Promise.all(
    (await table.locator('tbody tr').all()).map(async (row) =>
      (await row.locator('td').allInnerTexts()).slice(1, 3).map((cell) => cell.trim()),
    ),
  );
};

test('a de-DE receptionist searches as she types, in German, and the search lives in the address', async (t) => {
  const page = await germanPage(browser, t, backend, 'rita', '/patients');
  const searchBox = page.getByLabel('Nach Name, MRN, Geburtsdatum oder Telefon suchen');
  await searchBox.fill('muller');
  await eventually(
    t,
    rows(page, 'Patienten passend zu „muller“'),
    [['Müller, Jürgen', '07.03.1984']],
    'muller',
  );
  await page.waitForURL(/\/patients\?q=muller$/);
  await axeCheck(page, t);
  await screenshot(page, 'german-patients-search');
  await searchBox.fill('obrien');
  await eventually(
    t,
    rows(page, 'Patienten passend zu „obrien“'),
    [["O'Brien, Siobhán", '03.07.1990']],
    'obrien',
  );
  await searchBox.fill('7.3.1984');
  await eventually(
    t,
    rows(page, 'Patienten passend zu „7.3.1984“'),
    [['Müller, Jürgen', '07.03.1984']],
    'date',
  );
  await searchBox.fill('niemand');
  await page.getByText('Niemand passt zu „niemand“').waitFor();
  await searchBox.fill('jurgen');
  await page.waitForURL(/\/patients\?q=jurgen$/);

  await page.reload();
  await eventually(
    t,
    rows(page, 'Patienten passend zu „jurgen“'),
    [['Müller, Jürgen', '07.03.1984']],
    'reload',
  );
  await page.getByRole('link', { name: 'Müller, Jürgen' }).click();
  await page.getByRole('heading', { name: 'Müller, Jürgen' }).waitFor();
  await page.goBack();
  await eventually(
    t,
    rows(page, 'Patienten passend zu „jurgen“'),
    [['Müller, Jürgen', '07.03.1984']],
    'Back',
  );
  t.is(await searchBox.inputValue(), 'jurgen');
});

test('a de-DE clinician reads and edits the chart in German, at ?edit=1 through reload and Back', async (t) => {
  const page = await germanPage(browser, t, backend, 'cleo', `/patients/${mullerId}`);
  await page.getByRole('heading', { name: 'Müller, Jürgen' }).waitFor();
  const demographics = page.getByRole('region', { name: 'Stammdaten' });
  await demographics.getByText('07.03.1984').waitFor();
  const contact = page.getByRole('region', { name: 'Kontakt' });
  await contact.getByRole('link', { name: '+49 30 1234567' }).waitFor();
  t.is((await contact.locator('address').innerText()).trim(), 'Hauptstraße 5\n10115 Berlin\nDE');
  await page.getByRole('heading', { name: 'Dokumente', exact: true }).waitFor();
  await page.getByText('Keine Termine ab heute').waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'german-patient-chart');

  await page.getByRole('link', { name: 'Bearbeiten' }).click();
  await page.waitForURL(/\?edit=1$/);
  await page.reload();
  const city = page.getByRole('textbox', { name: 'Ort', exact: true });
  t.is(await city.inputValue(), 'Berlin', 'reload stays in edit mode');
  await city.fill('München');
  await page.getByRole('textbox', { name: 'Postleitzahl' }).fill('80331');
  await axeCheck(page, t);
  await screenshot(page, 'german-patient-chart-edit');
  await page.getByRole('button', { name: 'Änderungen speichern' }).click();
  await page.getByText('Die Änderungen wurden gespeichert.').waitFor();
  t.is((await page.locator('address').innerText()).trim(), 'Hauptstraße 5\n80331 München\nDE');
  t.like(await backend.knex('patients_patient').where({ id: mullerId }).first('address'), {
    address: { line: ['Hauptstraße 5'], city: 'München', postalCode: '80331', country: 'DE' },
  });
  await page.getByRole('link', { name: 'Bearbeiten' }).click();
  await page.waitForURL(/\?edit=1$/);
  await page.goBack();
  await page.getByRole('region', { name: 'Stammdaten' }).waitFor();
  t.false(
    await page.getByRole('button', { name: 'Änderungen speichern' }).isVisible(),
    'Back leaves edit mode',
  );
});

test('German registration warns of a probable duplicate with a German date; Ward assigns the MRN', async (t) => {
  const page = await germanPage(browser, t, backend, 'rita', '/patients/new');
  await page.getByRole('heading', { name: 'Neue Patientin / neuer Patient' }).waitFor();
  t.true(await page.getByRole('checkbox', { name: 'MRN automatisch vergeben' }).isChecked());
  await page.getByRole('textbox', { name: 'Nachname' }).fill('OTSUKA');
  await page.getByRole('textbox', { name: 'Vorname' }).fill('hanako');
  await page.getByLabel('Geburtsdatum').fill('2001-05-05');
  await page.getByRole('button', { name: 'Patient/in anlegen' }).click();
  const warning = page
    .getByRole('alert')
    .filter({ hasText: 'Diese Person ist vielleicht schon registriert' });
  await warning.waitFor();
  t.regex(
    (await warning.innerText()).replace(/\s+/g, ' '),
    /Ōtsuka, Hanako \(MRN MRN-0045\), geboren am 05\.05\.2001/,
  );
  t.is(
    await backend.knex('patients_patient').where({ given_name: 'hanako' }).first(),
    undefined,
    'nothing saved',
  );
  await axeCheck(page, t);
  await screenshot(page, 'german-patient-duplicate');

  await warning.getByRole('button', { name: 'Trotzdem registrieren' }).click();
  await page.getByText('Die Patientin oder der Patient wurde angelegt.').waitFor();
  const created = await backend.knex('patients_patient').where({ given_name: 'hanako' }).first('mrn');
  t.regex(created.mrn, /^\d{6}$/, 'Ward assigned the MRN');
  await page.getByText(`MRN ${created.mrn}`).first().waitFor();
});

test('the German chart prints without the shell and fits 390 px', async (t) => {
  const page = await germanPage(browser, t, backend, 'cleo', `/patients/${mullerId}`);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('heading', { name: 'Kontakt', exact: true }).waitFor();
  await page.getByRole('heading', { name: 'Dokumente', exact: true }).waitFor();
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  t.true(width <= 390, `the page is ${width} px wide`);
  await axeCheck(page, t);
  await screenshot(page, 'german-patient-chart-390');

  t.true(await page.getByRole('button', { name: 'Akte drucken' }).isVisible());
  await page.emulateMedia({ media: 'print' });
  t.true(await page.getByRole('heading', { name: 'Stammdaten' }).isVisible());
  t.true(await page.getByText('07.03.1984').isVisible(), 'the German birth date is on paper');
  for (const hidden of [
    page.locator('.topbar'),
    page.locator('.sidebar'),
    page.getByRole('button', { name: 'Akte drucken' }),
  ])
    t.false(await hidden.isVisible(), 'the shell and buttons stay off paper');
  await screenshot(page, 'german-patient-chart-print');
});

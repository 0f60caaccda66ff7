/**
 * The patient chart and patient search in a real browser: search as you type, ignoring accents and
 * punctuation, with the search in the URL (reload and Back keep it); the chart shows contact and
 * address and edits them at ?edit=1 (reload keeps edit mode, Back leaves it); registration warns
 * of a probable duplicate, links to the existing patient and registers anyway on request; Ward
 * assigns the MRN when asked; the chart fits 390 px and prints without the shell.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { foldedColumns } from '../../modules/patients/lib/fold.ts';
import {
  axeCheck,
  focused,
  launchBrowser,
  screenshot,
  signIn,
  startBackend,
  tabTo,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;
let mullerId: number;

const PATIENTS = [
  {
    mrn: 'MRN-0042',
    family_name: 'Müller',
    given_name: 'Jürgen',
    birth_date: '1984-03-07',
    phone: '+49 30 1234567',
    email: 'juergen@example.org',
    address: { line: ['Hauptstraße 5'], city: 'Berlin', postalCode: '10115', country: 'DE' },
  },
  { mrn: 'MRN-0043', family_name: "O'Brien", given_name: 'Siobhán', birth_date: '1990-07-03' },
  { mrn: 'MRN-0044', family_name: 'Mueller', given_name: 'Anna', birth_date: '1971-01-15' },
  // Registered again by the duplicate test, which runs beside the search test: no search finds her.
  { mrn: 'MRN-0045', family_name: 'Ōtsuka', given_name: 'Hanako', birth_date: '2001-05-05' },
];

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['appointments', 'documents'],
    users: [
      { username: 'rita', roles: ['receptionist'] },
      { username: 'cleo', roles: ['clinician'] },
    ],
  });
  const rows = PATIENTS.map((row) => ({
    ...row,
    address: row.address === undefined ? null : JSON.stringify(row.address),
    ...foldedColumns({
      mrn: row.mrn,
      familyName: row.family_name,
      givenName: row.given_name,
      phone: row.phone ?? null,
    }),
  }));
  const ids = (await backend.knex('patients_patient').insert(rows).returning('id')) as Array<{ id: number }>;
  mullerId = ids[0]!.id;
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

const names = async (page: Page, caption: string) => {
  const table = page.getByRole('table', { name: caption });
  await table.waitFor();
  return (await table.locator('tbody tr td:nth-child(2)').allInnerTexts()).map((cell) => cell.trim());
};

test('search follows typing, ignores accents and punctuation, and lives in the URL through reload and Back', async (t) => {
  const page = await browser.page(t);
  await page.goto(`${backend.base}/patients`);
  await signIn(page, 'rita');
  const searchBox = page.getByLabel('Search by name, MRN, birth date or phone');
  await searchBox.waitFor();
  await tabTo(page, searchBox);
  await page.keyboard.type('muller');
  t.deepEqual(await names(page, 'Patients matching “muller”'), ['Müller, Jürgen'], 'no Enter needed');
  await page.waitForURL(/\/patients\?q=muller$/);
  await focused(t, searchBox, 'the box keeps the focus');
  await axeCheck(page, t);
  await screenshot(page, 'patient-search-as-you-type');

  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('obrien');
  t.deepEqual(await names(page, 'Patients matching “obrien”'), ["O'Brien, Siobhán"]);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('7.3.1984');
  t.deepEqual(await names(page, 'Patients matching “7.3.1984”'), ['Müller, Jürgen'], 'a birth date');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('mu');
  t.deepEqual(await names(page, 'Patients matching “mu”'), ['Mueller, Anna', 'Müller, Jürgen']);
  await page.waitForURL(/\/patients\?q=mu$/);

  await page.reload();
  t.deepEqual(await names(page, 'Patients matching “mu”'), ['Mueller, Anna', 'Müller, Jürgen'], 'reload');
  t.is(await page.getByLabel('Search by name, MRN, birth date or phone').inputValue(), 'mu');

  await page.getByRole('link', { name: 'Müller, Jürgen' }).click();
  await page.getByRole('heading', { name: 'Müller, Jürgen' }).waitFor();
  await page.goBack();
  t.deepEqual(await names(page, 'Patients matching “mu”'), ['Mueller, Anna', 'Müller, Jürgen'], 'Back');
  t.is(await page.getByLabel('Search by name, MRN, birth date or phone').inputValue(), 'mu');
});

test('the chart shows contact and address, and edits them at ?edit=1, which reload keeps and Back leaves', async (t) => {
  const page = await browser.page(t);
  await page.goto(`${backend.base}/patients/${mullerId}`);
  // A clinician, who reads documents too: the chart shows every panel.
  await signIn(page, 'cleo');
  await page.getByRole('heading', { name: 'Müller, Jürgen' }).waitFor();
  const contact = page.getByRole('region', { name: 'Contact' });
  await contact.getByRole('link', { name: '+49 30 1234567' }).waitFor();
  await contact.getByRole('link', { name: 'juergen@example.org' }).waitFor();
  t.is((await contact.locator('address').innerText()).trim(), 'Hauptstraße 5\n10115 Berlin\nDE');
  // The other layers' panels, through the patient.chart slot.
  await page.locator('[data-slot="patient.chart"] [data-module="appointments"]').waitFor();
  await page.locator('[data-slot="patient.chart"] [data-module="documents"]').waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'patient-chart');

  await page.getByRole('link', { name: 'Edit' }).click();
  await page.waitForURL(/\?edit=1$/);
  await page.getByRole('button', { name: 'Save changes' }).waitFor();
  await page.reload();
  const city = page.getByRole('textbox', { name: 'City', exact: true });
  t.is(await city.inputValue(), 'Berlin', 'reload stays in edit mode');
  await city.fill('München');
  await page.getByRole('textbox', { name: 'Postal code' }).fill('80331');
  await page.getByRole('textbox', { name: 'Phone' }).fill('+49 89 7654321');
  await axeCheck(page, t);
  await screenshot(page, 'patient-chart-edit');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('The changes were saved.').waitFor();
  t.is((await page.locator('address').innerText()).trim(), 'Hauptstraße 5\n80331 München\nDE');
  t.like(
    await backend.knex('patients_patient').where({ id: mullerId }).first('address', 'phone', 'search_text'),
    {
      address: { line: ['Hauptstraße 5'], city: 'München', postalCode: '80331', country: 'DE' },
      phone: '+49 89 7654321',
      search_text: ' muller jurgen mrn0042 49897654321',
    },
  );

  await page.getByRole('link', { name: 'Edit' }).click();
  await page.waitForURL(/\?edit=1$/);
  await page.goBack();
  await page.getByRole('region', { name: 'Demographics' }).waitFor();
  t.false(await page.getByRole('button', { name: 'Save changes' }).isVisible(), 'Back leaves edit mode');
});

test('registration warns of a probable duplicate, links to it, and registers anyway on request; Ward assigns the MRN', async (t) => {
  const page = await browser.page(t);
  await page.goto(`${backend.base}/patients/new`);
  await signIn(page, 'rita');
  await page.getByRole('heading', { name: 'New patient' }).waitFor();
  t.true(await page.getByRole('checkbox', { name: 'Assign the MRN automatically' }).isChecked());
  await page.getByRole('textbox', { name: 'Family name' }).fill('OTSUKA');
  await page.getByRole('textbox', { name: 'Given name' }).fill('hanako');
  await page.getByLabel('Birth date').fill('2001-05-05');
  await page.getByRole('button', { name: 'Create patient' }).click();
  const warning = page.getByRole('alert').filter({ hasText: 'This patient may already be registered' });
  await warning.waitFor();
  await warning.getByRole('link', { name: 'Ōtsuka, Hanako (MRN MRN-0045)' }).waitFor();
  t.is(
    await backend.knex('patients_patient').where({ given_name: 'hanako' }).first(),
    undefined,
    'nothing saved',
  );
  await axeCheck(page, t);
  await screenshot(page, 'patient-duplicate-warning');

  await warning.getByRole('button', { name: 'Register anyway' }).click();
  await page.getByRole('heading', { name: 'OTSUKA, hanako' }).waitFor();
  await page.getByText('The patient was created.').waitFor();
  const created = await backend.knex('patients_patient').where({ given_name: 'hanako' }).first('mrn');
  t.regex(created.mrn, /^\d{6}$/, 'Ward assigned the MRN');
  await page.getByText(`MRN ${created.mrn}`).first().waitFor();
});

test('the chart fits 390 px, and prints its summary and panels without the shell, forms or buttons', async (t) => {
  const page = await browser.page(t);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${backend.base}/patients/${mullerId}`);
  await signIn(page, 'cleo');
  await page.getByRole('heading', { name: 'Contact', exact: true }).waitFor();
  t.true(await page.getByRole('button', { name: 'Print the chart' }).isVisible());
  await page.getByRole('heading', { name: 'Documents', exact: true }).waitFor();
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  t.true(width <= 390, `the page is ${width} px wide`);
  await axeCheck(page, t);
  await screenshot(page, 'patient-chart-390');

  await page.emulateMedia({ media: 'print' });
  t.true(await page.getByRole('heading', { name: 'Demographics' }).isVisible());
  t.true(await page.getByText('Hauptstraße 5').isVisible(), 'the address is on paper');
  t.true(
    await page.getByRole('heading', { name: 'Documents', exact: true }).isVisible(),
    "a panel's heading is kept",
  );
  for (const hidden of [
    page.locator('.topbar'),
    page.locator('.sidebar'),
    page.getByRole('button', { name: 'Print the chart' }),
    page.locator('main form').first(),
  ])
    t.false(await hidden.isVisible(), 'the shell, buttons and forms stay off paper');
  await screenshot(page, 'patient-chart-print');
  await page.emulateMedia({ media: 'screen' });
  t.true(await page.locator('.topbar').isVisible(), 'the screen is unchanged');
});

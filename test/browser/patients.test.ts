/**
 * The patients layer end to end, by keyboard: create a patient (the server's validation error shows
 * at its field, and nothing is saved), find it by MRN and by name, open it, edit it.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { foldedColumns } from '../../modules/patients/lib/fold.ts';
import {
  axeCheck,
  focused,
  launchBrowser,
  screenshot,
  sidebar,
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
    modules: ['patients'],
    users: [{ username: 'rita', roles: ['receptionist'] }],
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** A text input by its accessible name (the label without the required mark, hidden from it). */
const textbox = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

/** Tab to the field and type, as a keyboard user fills a form. */
async function typeInto(page: Page, name: string, text: string): Promise<void> {
  await tabTo(page, textbox(page, name));
  await page.keyboard.type(text);
}

test('a receptionist creates a patient by keyboard, meets a validation error, then finds it by MRN and by name, opens and edits it', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'rita');

  await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
  await page.keyboard.press('Enter');
  await page.getByText('No patients yet').waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'patients-empty');

  await tabTo(page, page.getByRole('link', { name: 'New patient' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'New patient' }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'patients-new');

  // The clinic types its own MRN here, rather than leaving it to Ward.
  await tabTo(page, page.getByRole('checkbox', { name: 'Assign the MRN automatically' }));
  await page.keyboard.press('Space');
  await typeInto(page, 'MRN', 'MRN-0042');
  await typeInto(page, 'Family name', 'Lovelace');
  await typeInto(page, 'Given name', 'Ada');
  await typeInto(page, 'Email', 'not an email address');
  await tabTo(page, page.getByRole('button', { name: 'Create patient' }));
  await page.keyboard.press('Enter');

  const email = textbox(page, 'Email');
  await page.locator('#field-email-error').waitFor();
  t.regex(await page.locator('#field-email-error').innerText(), /email/);
  t.is(await email.getAttribute('aria-invalid'), 'true');
  t.regex((await email.getAttribute('aria-describedby')) ?? '', /field-email-error/);
  await focused(t, email, 'the field in error has the focus');
  t.is(await textbox(page, 'MRN').inputValue(), 'MRN-0042', 'what was typed stays');
  t.deepEqual(await backend.knex('patients_patient').select('id'), [], 'nothing was saved');
  await axeCheck(page, t);
  await screenshot(page, 'patients-new-invalid');

  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('ada@example.org');
  await tabTo(page, page.getByRole('button', { name: 'Create patient' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Lovelace, Ada' }).waitFor();
  await page.getByText('The patient was created.').waitFor();
  t.like(await backend.knex('patients_patient').first('mrn', 'family_name', 'email'), {
    mrn: 'MRN-0042',
    family_name: 'Lovelace',
    email: 'ada@example.org',
  });
  await axeCheck(page, t);
  await screenshot(page, 'patients-created');

  // Another patient, so that a search must tell them apart.
  await backend.knex('patients_patient').insert({
    mrn: 'MRN-0099',
    family_name: 'Babbage',
    given_name: 'Charles',
    ...foldedColumns({ mrn: 'MRN-0099', familyName: 'Babbage', givenName: 'Charles', phone: null }),
  });
  await tabTo(page, page.getByRole('link', { name: 'Back to the patient list' }));
  await page.keyboard.press('Enter');
  await page
    .getByRole('table', { name: 'All patients, by name' })
    .getByRole('link', { name: 'Babbage, Charles' })
    .waitFor();
  const searchBox = page.getByLabel('Search by name, MRN, birth date or phone');
  /** Tab to the search box, replace what it holds, and press Enter, as a clerk searches. */
  const search = async (text: string) => {
    await tabTo(page, searchBox);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
  };
  const names = async (caption: string) => {
    const table = page.getByRole('table', { name: caption });
    await table.waitFor();
    return (await table.locator('tbody tr td:nth-child(2)').allInnerTexts()).map((cell) => cell.trim());
  };

  await search('MRN-0042');
  t.deepEqual(
    await names('Patients matching “MRN-0042”'),
    ['Lovelace, Ada'],
    'the MRN finds its patient only',
  );
  await axeCheck(page, t);
  await screenshot(page, 'patients-search-mrn');

  await search('lovel');
  t.deepEqual(await names('Patients matching “lovel”'), ['Lovelace, Ada'], 'the name finds its patient only');
  const found = page.getByRole('table').getByRole('link', { name: 'Lovelace, Ada' });
  await axeCheck(page, t);
  await screenshot(page, 'patients-search');

  await tabTo(page, found);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Lovelace, Ada' }).waitFor();
  await tabTo(page, page.getByRole('link', { name: 'Edit' }));
  await page.keyboard.press('Enter');
  await typeInto(page, 'Phone', '+44 20 7946 0000');
  await axeCheck(page, t);
  await screenshot(page, 'patients-edit');
  await tabTo(page, page.getByRole('button', { name: 'Save changes' }));
  await page.keyboard.press('Enter');
  await page.getByText('The changes were saved.').waitFor();
  await page.getByText('+44 20 7946 0000').waitFor();
  t.like(await backend.knex('patients_patient').where({ mrn: 'MRN-0042' }).first('phone'), {
    phone: '+44 20 7946 0000',
  });
  t.like(await backend.knex('patients_patient').where({ mrn: 'MRN-0099' }).first('phone'), { phone: null });
  await axeCheck(page, t);
  await screenshot(page, 'patients-edited');
});

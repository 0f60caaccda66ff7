/**
 * What the web UI says to the person in front of it: a form reports every empty required field at
 * once (marked as required, nothing sent), a refusal is a sentence for a clerk rather than the
 * operator's hint (a route, a command), and a banner about a past action goes at the next action.
 */
import test from 'ava';
import type { Locator, Page } from 'playwright-core';
import {
  axeCheck,
  focused,
  launchBrowser,
  screenshot,
  signIn,
  startBackend,
  chooseFileByKeyboard,
  tabTo,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['appointments', 'documents'],
    users: [{ username: 'cleo', roles: ['clinician'] }],
  });
  await backend
    .knex('patients_patient')
    .insert({ mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Operator wording: a route, an HTTP method, a `ward` command, a placeholder, a JSON field name. */
const OPERATOR_WORDS = /\/api\/|\bGET\b|\bPOST\b|ward [a-z]+ [a-z]+|<[a-z]+>|openapi|patient id|patientId/;

async function press(page: Page, name: string): Promise<void> {
  await tabTo(page, page.getByRole('button', { name, exact: true }));
  await page.keyboard.press('Enter');
}

/** The writes the page sends: a form that refuses by itself sends none. */
function writesOf(page: Page): string[] {
  const writes: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'GET') writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  return writes;
}

/** Asserts that `field` (an input) is marked required: its own `required`, and the visible `*`. */
async function markedRequired(t: Parameters<typeof axeCheck>[1], page: Page, id: string): Promise<void> {
  const input = page.locator(`#${id}`);
  t.not(await input.getAttribute('required'), null, `${id} is required`);
  t.is((await page.locator(`label[for="${id}"] .field-required`).innerText()).trim(), '*', `${id} shows *`);
}

/** Asserts that the field `id` says `message`, tied to it, with aria-invalid. */
async function saysAtField(
  t: Parameters<typeof axeCheck>[1],
  page: Page,
  id: string,
  message: string,
): Promise<Locator> {
  const input = page.locator(`#${id}`);
  t.is((await page.locator(`#${id}-error`).innerText()).trim(), message, `${id} says it`);
  t.is(await input.getAttribute('aria-invalid'), 'true', `${id} is invalid`);
  t.regex((await input.getAttribute('aria-describedby')) ?? '', new RegExp(`${id}-error`));
  return input;
}

test.serial('sign-in with nothing typed says both fields at once and sends nothing', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  const writes = writesOf(page);
  await press(page, 'Sign in');
  await page.locator('#field-password-error').waitFor();
  const username = await saysAtField(t, page, 'field-username', 'Fill in this field.');
  await saysAtField(t, page, 'field-password', 'Fill in this field.');
  await focused(t, username, 'the first empty field has the focus');
  await markedRequired(t, page, 'field-username');
  await markedRequired(t, page, 'field-password');
  t.deepEqual(writes, [], 'nothing was sent');
  await axeCheck(page, t);
  await screenshot(page, 'messages-sign-in-empty');
});

test.serial(
  'a new patient with nothing filled in names the three required fields at once; a taken MRN is said as a clerk would',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(`${backend.base}/patients/new`);
    await signIn(page, 'cleo');
    await page.getByRole('heading', { name: 'New patient' }).waitFor();
    // This clinic types its MRNs.
    await page.getByRole('checkbox', { name: 'Assign the MRN automatically' }).uncheck();
    for (const id of ['field-mrn', 'field-familyName', 'field-givenName']) await markedRequired(t, page, id);
    const writes = writesOf(page);
    await press(page, 'Create patient');
    await page.locator('#field-givenName-error').waitFor();
    const mrn = await saysAtField(t, page, 'field-mrn', 'Fill in this field.');
    await saysAtField(t, page, 'field-familyName', 'Fill in this field.');
    await saysAtField(t, page, 'field-givenName', 'Fill in this field.');
    await focused(t, mrn, 'the first empty field has the focus');
    t.deepEqual(writes, [], 'nothing was sent');
    await axeCheck(page, t);
    await screenshot(page, 'messages-patient-all-missing');

    await page.keyboard.type('MRN-0042');
    await tabTo(page, page.locator('#field-familyName'));
    await page.keyboard.type('Hopper');
    await tabTo(page, page.locator('#field-givenName'));
    await page.keyboard.type('Grace');
    await press(page, 'Create patient');
    const banner = page.getByRole('alert').filter({ hasText: 'The patient was not saved' });
    await banner.waitFor();
    const shown = await banner.innerText();
    t.regex(shown, /Another patient already has this MRN\./);
    t.regex(shown, /Search the patient list for it, or give this patient a different MRN\./);
    t.notRegex(shown, OPERATOR_WORDS, 'no operator wording shows');
    t.is(
      (await page.locator('#field-mrn-error').innerText()).trim(),
      'Another patient already has this MRN.',
    );
    t.is(await page.locator('#field-familyName-error').count(), 0, 'the fields now filled say nothing');
    t.deepEqual(
      await backend.knex('patients_patient').pluck('family_name'),
      ['Lovelace'],
      'nothing was saved',
    );
    await axeCheck(page, t);
    await screenshot(page, 'messages-patient-mrn-taken');

    // The server's own words stay reachable, folded away, for whoever is asked to help.
    const details = banner.getByText('Details for your administrator');
    await tabTo(page, details);
    await page.keyboard.press('Enter');
    t.regex(
      await banner.locator('details').innerText(),
      /conflict: a patient with MRN "MRN-0042" already exists/,
    );
    await axeCheck(page, t);
    await screenshot(page, 'messages-patient-mrn-taken-details');
  },
);

test.serial(
  'a new appointment with nothing chosen names the patient, practitioner and both times at once',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(`${backend.base}/appointments/new`);
    await signIn(page, 'cleo');
    await page.getByRole('heading', { name: 'New appointment' }).waitFor();
    for (const id of [
      'field-patientId',
      'field-practitionerId',
      'field-date',
      'field-startAt',
      'field-endAt',
    ])
      await markedRequired(t, page, id);
    const writes = writesOf(page);
    await press(page, 'Book appointment');
    await page.locator('#field-endAt-error').waitFor();
    const patient = await saysAtField(
      t,
      page,
      'field-patientId',
      'Search for the patient, then choose them.',
    );
    await saysAtField(t, page, 'field-practitionerId', 'Choose the practitioner.');
    for (const id of ['field-startAt', 'field-endAt']) await saysAtField(t, page, id, 'Fill in this field.');
    t.is(await page.locator('#field-date-error').count(), 0, 'the date has its default, today');
    await focused(t, patient, 'the patient search has the focus');
    t.notRegex(await page.locator('main').innerText(), OPERATOR_WORDS);
    t.deepEqual(writes, [], 'nothing was sent');
    await axeCheck(page, t);
    await screenshot(page, 'messages-appointment-all-missing');
  },
);

test.serial(
  "a document's “uploaded” banner goes away at the next upload, which names the missing file",
  async (t) => {
    const page = await browser.page(t);
    const patient = (await backend.knex('patients_patient').where({ mrn: 'MRN-0042' }).first('id')) as {
      id: number;
    };
    await page.goto(`${backend.base}/documents?patient=${patient.id}`);
    await signIn(page, 'cleo');
    await page.getByRole('heading', { name: 'Documents of Lovelace, Ada' }).waitFor();
    await markedRequired(t, page, 'field-file');
    const chooser = await chooseFileByKeyboard(page, page.getByLabel('File'));
    await chooser.setFiles({ name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from('A note\n') });
    await press(page, 'Upload');
    const uploaded = page.getByText('“note.txt” was uploaded (7 bytes).');
    await uploaded.waitFor();
    await screenshot(page, 'messages-document-uploaded');

    const writes = writesOf(page);
    await press(page, 'Upload');
    await page.locator('#field-file-error').waitFor();
    t.is(await uploaded.count(), 0, 'the banner about the last upload is gone');
    t.is(await page.locator('#upload-progress').count(), 0, 'and so is its progress bar');
    const file = await saysAtField(t, page, 'field-file', 'Choose the file to upload.');
    await focused(t, file, 'the file field has the focus');
    t.deepEqual(writes, [], 'nothing was sent');
    await axeCheck(page, t);
    await screenshot(page, 'messages-document-next-upload');
  },
);

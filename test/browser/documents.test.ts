/**
 * The documents layer end to end, by keyboard: find a patient, upload a small file (the progress
 * bar reaches 100% and the document is listed), download it and get the same bytes back.
 */
import { readFile } from 'node:fs/promises';
import test from 'ava';
import { insertPatients } from '../modules/helpers.ts';
import {
  axeCheck,
  eventually,
  launchBrowser,
  ONE_PIXEL_PNG,
  press,
  screenshot,
  sidebar,
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
    modules: ['patients', 'documents'],
    users: [
      { username: 'cleo', roles: ['clinician'] },
      { username: 'ada', roles: ['admin'] },
    ],
  });
  await insertPatients(backend.knex, [
    { mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' },
    { mrn: 'MRN-0043', family_name: 'Müller', given_name: 'Jürgen' },
  ]);
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Bytes that are not all text, so a download that mangled them would show. */
const CONTENT = Buffer.concat([Buffer.from('Referral letter\n'), Buffer.from([0, 1, 2, 254, 255])]);

test('a clinician finds a patient, uploads a file with its progress shown, sees it listed and downloads the same bytes', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'cleo');

  await tabTo(page, sidebar(page).filter({ hasText: 'Documents' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Documents' }).waitFor();
  await tabTo(page, page.getByRole('searchbox', { name: 'Patient: search by name or MRN' }));
  await page.keyboard.type('lovel');
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'Lovelace, Ada (MRN MRN-0042)' }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'documents-search');

  await press(page, 'Lovelace, Ada (MRN MRN-0042)', 'link');
  await page.getByRole('heading', { name: 'Documents of Lovelace, Ada' }).waitFor();
  await page.getByText('No documents yet').waitFor();
  t.regex(page.url(), /\/documents\?patient=\d+$/, 'the page has a link of its own');
  await axeCheck(page, t);
  await screenshot(page, 'documents-empty');

  const chooser = await chooseFileByKeyboard(page, page.getByLabel('File'));
  await chooser.setFiles({ name: 'referral.bin', mimeType: 'application/octet-stream', buffer: CONTENT });
  t.is(
    await page.getByRole('textbox', { name: 'Title' }).inputValue(),
    'referral.bin',
    'the title is the file name',
  );
  await press(page, 'Upload');

  await page.getByText('“referral.bin” was uploaded (21 bytes).').waitFor();
  t.is(await page.locator('#upload-progress').getAttribute('value'), '100');
  const table = page.getByRole('table', { name: 'Documents of Lovelace, Ada, newest first' });
  await table.getByRole('cell', { name: 'referral.bin', exact: true }).first().waitFor();
  t.like(
    await backend
      .knex('documents_document')
      .where({ title: 'referral.bin' })
      .first('title', 'size', 'content_type'),
    {
      title: 'referral.bin',
      size: '21',
      content_type: 'application/octet-stream',
    },
  );
  await axeCheck(page, t);
  await screenshot(page, 'documents-uploaded');

  const link = table.getByRole('link', { name: 'Download referral.bin' });
  await tabTo(page, link);
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  t.is(download.suggestedFilename(), 'referral.bin');
  t.deepEqual(await readFile(await download.path()), CONTENT, 'the download has the uploaded bytes');
});

test('an admin files a document by name and category, previews, deletes and restores it', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'ada');
  await page.getByRole('navigation', { name: 'Modules' }).waitFor();
  const patient = (await backend.knex('patients_patient').where({ mrn: 'MRN-0043' }).first('id')) as {
    id: number;
  };
  await page.goto(`${backend.base}/documents?patient=${patient.id}`);
  await page.getByRole('heading', { name: 'Documents of Müller, Jürgen' }).waitFor();

  const uploadFile = async (file: { name: string; mimeType: string; buffer: Buffer }, category: string) => {
    // The first test opens the chooser from the keyboard; here the files are set directly.
    await page.locator('#field-file').setInputFiles(file);
    await page.getByRole('combobox', { name: 'Category', exact: true }).selectOption({ label: category });
    await press(page, 'Upload');
    await page.getByText(`“${file.name}” was uploaded`).waitFor();
  };
  await uploadFile(
    { name: 'Befund Müller.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') },
    'Lab result',
  );
  await uploadFile({ name: 'scan.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG }, 'Imaging');

  const table = page.getByRole('table', { name: 'Documents of Müller, Jürgen, newest first', exact: true });
  const pdfRow = table.getByRole('row').filter({ hasText: 'Befund Müller.pdf' }).first();
  await pdfRow.getByRole('cell', { name: 'Lab result', exact: true }).waitFor();
  await pdfRow.getByRole('cell', { name: 'Uploaded', exact: true }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'documents-filed');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    press(page, 'Download Befund Müller.pdf', 'link'),
  ]);
  t.is(download.suggestedFilename(), 'Befund Müller.pdf', 'the download keeps the original name');

  await page.getByRole('combobox', { name: 'Show category' }).selectOption({ label: 'Imaging' });
  await table.getByRole('cell', { name: 'scan.png' }).first().waitFor();
  t.is(await table.getByText('Befund Müller.pdf').count(), 0, 'the filter hides other categories');
  await press(page, 'Preview scan.png');
  const image = page.getByRole('img', { name: 'scan.png (scan.png)' });
  await image.waitFor();
  // Loaded and decoded: the preview shows the picture, not a broken image.
  await page.waitForFunction("document.querySelector('.document-preview img')?.naturalWidth === 1");
  await axeCheck(page, t);
  await screenshot(page, 'documents-preview-image');

  await page.getByRole('combobox', { name: 'Show category' }).selectOption({ label: 'All categories' });
  await press(page, 'Preview Befund Müller.pdf');
  const frame = page.locator('iframe[title="Befund Müller.pdf (Befund Müller.pdf)"]');
  await frame.waitFor();
  t.regex((await frame.getAttribute('src')) ?? '', /\/content\?inline=1$/);
  await axeCheck(page, t);
  await screenshot(page, 'documents-preview-pdf');
  await press(page, 'Close the preview');

  await press(page, 'Delete Befund Müller.pdf');
  await page.getByText('Delete “Befund Müller.pdf”?').waitFor();
  await axeCheck(page, t);
  await press(page, 'Delete it');
  await page.getByText('“Befund Müller.pdf” was deleted.').waitFor();
  await page.getByRole('checkbox', { name: 'Show deleted documents' }).check();
  const bin = page.getByRole('table', { name: 'Deleted documents of Müller, Jürgen, newest first' });
  await bin.getByRole('cell', { name: 'Befund Müller.pdf' }).first().waitFor();
  t.is(await table.getByText('Befund Müller.pdf').count(), 0, 'gone from the list');
  await axeCheck(page, t);
  await screenshot(page, 'documents-deleted');

  await press(page, 'Restore Befund Müller.pdf');
  await page.getByText('“Befund Müller.pdf” was restored.').waitFor();
  await table.getByRole('cell', { name: 'Befund Müller.pdf' }).first().waitFor();
  await page.getByText('No deleted documents').waitFor();
  t.like(await backend.knex('documents_document').where({ file_name: 'Befund Müller.pdf' }).first(), {
    deleted_at: null,
    category: 'lab_result',
  });
  await axeCheck(page, t);
  await screenshot(page, 'documents-restored');
});

test('the filter (category, search, deleted shown) is in the address: reload and Back return to it', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'ada');
  await page.getByRole('navigation', { name: 'Modules' }).waitFor();
  const [patient] = (await backend
    .knex('patients_patient')
    .insert({ mrn: 'MRN-0044', family_name: 'Hopper', given_name: 'Grace' })
    .returning('id')) as Array<{ id: number }>;
  const list = `/documents?patient=${patient!.id}`;
  await page.goto(`${backend.base}${list}`);
  await page.getByRole('heading', { name: 'Documents of Hopper, Grace' }).waitFor();
  for (const [name, category] of [
    ['knee scan.png', 'Imaging'],
    ['chest scan.png', 'Imaging'],
    ['discharge letter.png', 'Letter'],
  ] as const) {
    await page.locator('#field-file').setInputFiles({ name, mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
    await page.getByRole('combobox', { name: 'Category', exact: true }).selectOption({ label: category });
    await press(page, 'Upload');
    await page.getByText(`“${name}” was uploaded`).waitFor();
  }
  await press(page, 'Delete chest scan.png');
  await press(page, 'Delete it');
  await page.getByText('“chest scan.png” was deleted.').waitFor();

  const table = page.getByRole('table', { name: 'Documents of Hopper, Grace, newest first', exact: true });
  const bin = page.getByRole('table', { name: 'Deleted documents of Hopper, Grace, newest first' });
  const names = async (which: typeof table) =>
    (await which.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t')[0]!.trim());
  await page.getByRole('combobox', { name: 'Show category' }).selectOption({ label: 'Imaging' });
  await page.getByRole('searchbox', { name: 'Search documents' }).fill('SCAN');
  await page.getByRole('checkbox', { name: 'Show deleted documents' }).check();
  const expectFiltered = async (when: string) => {
    await eventually(t, () => names(table), ['knee scan.png'], `the list ${when}`);
    await eventually(t, () => names(bin), ['chest scan.png'], `the deleted ${when}`);
    t.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), {
      patient: String(patient!.id),
      category: 'imaging',
      q: 'SCAN',
      deleted: '1',
    });
  };
  await expectFiltered('as filtered');
  await axeCheck(page, t);

  await page.reload();
  await page.getByRole('heading', { name: 'Documents of Hopper, Grace' }).waitFor();
  t.is(await page.getByRole('combobox', { name: 'Show category' }).inputValue(), 'imaging');
  t.is(await page.getByRole('searchbox', { name: 'Search documents' }).inputValue(), 'SCAN');
  t.true(await page.getByRole('checkbox', { name: 'Show deleted documents' }).isChecked());
  await expectFiltered('after a reload');

  await page.getByRole('navigation', { name: 'Modules' }).getByRole('link', { name: 'Patients' }).click();
  await page.getByRole('heading', { name: 'Patients', level: 1 }).waitFor();
  await page.goBack();
  await page.getByRole('heading', { name: 'Documents of Hopper, Grace' }).waitFor();
  await expectFiltered('after Back');
});

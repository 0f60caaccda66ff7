/**
 * The documents layer end to end, by keyboard: find a patient, upload a small file (the progress
 * bar reaches 100% and the document is listed), download it and get the same bytes back.
 */
import { readFile } from 'node:fs/promises';
import test from 'ava';
import type { Page } from 'playwright-core';
import { insertPatients } from '../modules/helpers.ts';
import {
  axeCheck,
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
    modules: ['patients', 'documents'],
    users: [{ username: 'cleo', roles: ['clinician'] }],
  });
  await insertPatients(backend.knex, [{ mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' }]);
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

async function press(page: Page, name: string, role: 'button' | 'link' = 'button'): Promise<void> {
  await tabTo(page, page.getByRole(role, { name, exact: true }));
  await page.keyboard.press('Enter');
}

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

  await tabTo(page, page.getByLabel('File'));
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Space')]);
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
  await table.getByRole('cell', { name: 'referral.bin', exact: true }).waitFor();
  t.like(await backend.knex('documents_document').first('title', 'size', 'content_type'), {
    title: 'referral.bin',
    size: '21',
    content_type: 'application/octet-stream',
  });
  await axeCheck(page, t);
  await screenshot(page, 'documents-uploaded');

  const link = table.getByRole('link', { name: 'Download referral.bin' });
  await tabTo(page, link);
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  t.is(download.suggestedFilename(), 'referral.bin');
  t.deepEqual(await readFile(await download.path()), CONTENT, 'the download has the uploaded bytes');
});

/**
 * The migration_import layer end to end, as the migration operator drives it: upload a Synthea
 * patients.csv, validate it, preview it and execute it with the progress bar reaching 100%; an
 * invalid file's warnings table; and a user holding only job.read, who sees jobs but no action
 * that creates, validates or executes one.
 */
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { FIXTURES } from '../helpers/cli.ts';
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

const PATIENTS_CSV = path.join(FIXTURES, 'import', 'synthea', 'patients.csv');
const BAD_DATES_CSV = path.join(FIXTURES, 'import', 'bad', 'bad-dates.csv');

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['migration_import'],
    grants: { import_viewer: ['migration_import.job.read'] },
    users: [
      { username: 'olga', roles: ['admin'] },
      { username: 'vic', roles: ['import_viewer'] },
    ],
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

const count = async (table: string) =>
  Number(((await backend.knex(table).count({ n: '*' })) as Array<{ n: string }>)[0]!.n);

/** Presses a button by keyboard: Tab to it, then Enter. */
async function press(page: Page, name: string): Promise<void> {
  await tabTo(page, page.getByRole('button', { name, exact: true }));
  await page.keyboard.press('Enter');
}

/** Fills and sends the upload form: the file is set on the input (a file dialog is the OS's), the rest typed. */
async function upload(page: Page, file: string, sourceSystem: string): Promise<void> {
  await tabTo(page, page.getByRole('link', { name: 'New import' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'New import' }).waitFor();
  await page.getByLabel('Source file').setInputFiles(file);
  await tabTo(page, page.getByRole('textbox', { name: 'Source system' }));
  await page.keyboard.type(sourceSystem);
  await press(page, 'Upload');
}

const stateHeading = (page: Page, state: string) => page.getByRole('heading', { name: `State: ${state}` });

test.serial('an operator imports a Synthea patients.csv from upload to executed, by keyboard', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'olga');

  await tabTo(page, sidebar(page).filter({ hasText: 'Data import' }));
  await page.keyboard.press('Enter');
  await page.getByText('No import jobs yet').waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'import-empty');

  await tabTo(page, page.getByRole('link', { name: 'New import' }));
  await page.keyboard.press('Enter');
  await page.getByLabel('Source file').setInputFiles(PATIENTS_CSV);
  t.is(
    await page.getByLabel('Format').inputValue(),
    'synthea-patients-csv',
    "the format follows the file's name",
  );
  await tabTo(page, page.getByRole('textbox', { name: 'Source system' }));
  await page.keyboard.type('oldclinic');
  await axeCheck(page, t);
  await screenshot(page, 'import-new');
  await press(page, 'Upload');
  await page.getByText('The source was uploaded.').waitFor();
  await stateHeading(page, 'Uploaded').waitFor();
  t.like(await backend.knex('migration_import_job').first('state', 'source_system', 'format'), {
    state: 'created',
    source_system: 'oldclinic',
    format: 'synthea-patients-csv',
  });
  await axeCheck(page, t);
  await screenshot(page, 'import-uploaded');

  await press(page, 'Validate');
  await stateHeading(page, 'Validated').waitFor();
  t.is(await page.getByRole('term').filter({ hasText: 'Patients to import' }).count(), 1);
  t.is(await page.locator('dt:has-text("Patients to import") + dd').innerText(), '50');
  await press(page, 'Preview');
  const counts = page.getByRole('table', { name: 'Records execute would create, update and skip' });
  await counts.waitFor();
  t.deepEqual(
    (
      await counts
        .getByRole('row', { name: /^Patients/ })
        .getByRole('cell')
        .allInnerTexts()
    ).map((cell) => cell.trim()),
    ['Patients', '50', '0', '0'],
  );
  await page.getByRole('table', { name: 'First rows to create' }).waitFor();
  t.is(await count('patients_patient'), 0, 'the preview wrote nothing');
  await axeCheck(page, t);
  await screenshot(page, 'import-preview');

  await press(page, 'Execute');
  await stateHeading(page, 'Succeeded').waitFor();
  const bar = page.getByRole('progressbar', { name: 'Execute progress' });
  t.is(await bar.getAttribute('value'), '50');
  t.is(await bar.getAttribute('max'), '50');
  t.is((await page.locator('#execute-progress-text').innerText()).trim(), '50 of 50 records (100%)');
  t.deepEqual(
    (
      await page
        .getByRole('table', { name: 'What execute wrote' })
        .getByRole('row', { name: /^Patients/ })
        .getByRole('cell')
        .allInnerTexts()
    ).map((cell) => cell.trim()),
    ['Patients', '50', '0', '0', '0'],
  );
  t.is(await count('patients_patient'), 50);
  await axeCheck(page, t);
  await screenshot(page, 'import-executed');

  await tabTo(page, page.getByRole('link', { name: 'Back to the import jobs' }));
  await page.keyboard.press('Enter');
  const jobs = page.getByRole('table', { name: 'Import jobs, newest first' });
  await jobs.getByRole('cell', { name: 'Succeeded' }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'import-jobs');
});

test.serial(
  "a bad source system name is refused at its field, and an invalid file's errors show in the warnings table",
  async (t) => {
    const page = await browser.page(t);
    await page.goto(`${backend.base}/migration_import`);
    await signIn(page, 'olga');
    await page.getByRole('heading', { name: 'Data import' }).waitFor();
    await upload(page, BAD_DATES_CSV, 'old clinic');
    const sourceSystem = page.getByRole('textbox', { name: 'Source system' });
    await page.locator('#field-source_system-error').waitFor();
    t.regex(await page.locator('#field-source_system-error').innerText(), /source_system.*letters, digits/s);
    t.is(await sourceSystem.getAttribute('aria-invalid'), 'true');
    await focused(t, sourceSystem, 'the field in error has the focus');
    t.is(await count('migration_import_job'), 1, 'the refused upload made no job');
    await axeCheck(page, t);
    await screenshot(page, 'import-new-refused');

    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('oldclinic');
    await press(page, 'Upload');
    await page.getByText('The source was uploaded.').waitFor();
    await press(page, 'Validate');
    await stateHeading(page, 'Invalid').waitFor();

    const table = page.getByRole('table', { name: 'Errors, in source order' });
    await table.waitFor();
    const cells = async (column: number) =>
      (await table.locator(`tbody tr td:nth-child(${column})`).allInnerTexts()).map((cell) => cell.trim());
    t.deepEqual(await cells(4), ['bad_date', 'bad_date', 'missing_field']);
    t.deepEqual(await cells(3), ['error', 'error', 'error']);
    t.regex((await cells(5))[0]!, /1985-02-30/);
    t.is(
      await page.getByRole('button', { name: 'Execute', exact: true }).count(),
      0,
      'an invalid job has no Execute',
    );
    await axeCheck(page, t);
    await screenshot(page, 'import-invalid');

    await tabTo(page, page.getByRole('combobox', { name: 'Show' }));
    await page.getByRole('combobox', { name: 'Show' }).selectOption('');
    await page.getByRole('table', { name: 'Warnings, in source order' }).waitFor();
    t.is(await count('patients_patient'), 50, 'the invalid file changed no patient');
  },
);

test.serial(
  'a user holding only job.read sees the jobs and their preview, and no action that changes one',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'vic');
    await sidebar(page).filter({ hasText: 'Data import' }).click();
    const jobs = page.getByRole('table', { name: 'Import jobs, newest first' });
    await jobs.waitFor();
    t.is(await page.getByRole('link', { name: 'New import' }).count(), 0);
    await axeCheck(page, t);
    await screenshot(page, 'import-reader-jobs');

    const before = await backend
      .knex('migration_import_job')
      .orderBy('id')
      .select('id', 'state', 'updated_at');
    await jobs.getByRole('link', { name: 'Job 1', exact: true }).click();
    await stateHeading(page, 'Succeeded').waitFor();
    await page.getByRole('button', { name: 'Preview' }).waitFor();
    for (const name of ['Validate', 'Validate again', 'Execute', 'Execute again'])
      t.is(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name} button`);
    await axeCheck(page, t);
    await screenshot(page, 'import-reader-job');

    await page.goto(`${backend.base}/migration_import/new`);
    await page.getByText('You cannot start an import').waitFor();
    t.is(await page.getByLabel('Source file').count(), 0);
    await axeCheck(page, t);
    t.deepEqual(
      await backend.knex('migration_import_job').orderBy('id').select('id', 'state', 'updated_at'),
      before,
      'no job changed',
    );
  },
);

/**
 * The migration_import layer end to end, as the migration operator drives it: upload a Synthea
 * patients.csv, validate it, preview it and execute it with the progress bar reaching 100%; an
 * invalid file's warnings table, filtered by severity and paged; the preview of an import that
 * updates a patient imported before (its row before and after); and a user holding only job.read,
 * who sees jobs but no action that creates, validates or executes one.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { FIXTURES, scratchDir } from '../helpers/cli.ts';
import {
  axeCheck,
  eventually,
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
/** Sources the tests write, each a patients.csv (the name picks the format) in a folder of its own. */
let scratch: string;

/**
 * patients.csv with `change(fields, index)` applied to each data row's fields (index from 0). The
 * fields before GENDER hold no quotes, so splitting at commas and joining back keeps the rest as is.
 */
async function derivedPatientsCsv(
  folder: string,
  change: (fields: string[], index: number) => void,
): Promise<string> {
  const [header, ...rows] = (await readFile(PATIENTS_CSV, 'utf8')).trimEnd().split('\n');
  const changed = rows.map((row, index) => {
    const fields = row.split(',');
    if (fields.slice(0, 15).some((field) => field.includes('"')))
      throw new Error(`row ${index} is quoted early`);
    change(fields, index);
    return fields.join(',');
  });
  const file = path.join(scratch, folder, 'patients.csv');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${[header, ...changed].join('\n')}\n`);
  return file;
}

test.before(async () => {
  scratch = await scratchDir('ward-browser-import-');
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
  await rm(scratch, { recursive: true, force: true });
});

const count = async (table: string) =>
  Number(((await backend.knex(table).count({ n: '*' })) as Array<{ n: string }>)[0]!.n);

/** Presses a button by keyboard: Tab to it, then Enter. */
async function press(page: Page, name: string): Promise<void> {
  await tabTo(page, page.getByRole('button', { name, exact: true }));
  await page.keyboard.press('Enter');
}

/** Fills and sends the upload form: the file is set on the input (a file dialog is the OS's), the rest typed. */
/** The preview's Patients row, once it shows: kind, then the counts to create, update and skip. */
async function previewedPatients(page: Page): Promise<string[]> {
  const counts = page.getByRole('table', { name: 'Records execute would create, update and skip' });
  await counts.waitFor();
  const cells = await counts
    .getByRole('row', { name: /^Patients/ })
    .getByRole('cell')
    .allInnerTexts();
  return cells.map((cell) => cell.trim());
}

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
  t.is(
    await page.getByText('The source was uploaded.').count(),
    0,
    'the upload banner went at the next step',
  );
  t.is(await page.getByRole('term').filter({ hasText: 'Patients to import' }).count(), 1);
  t.is(await page.locator('dt:has-text("Patients to import") + dd').innerText(), '50');
  await press(page, 'Preview');
  t.deepEqual(await previewedPatients(page), ['Patients', '50', '0', '0']);
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
    await tabTo(page, sidebar(page).filter({ hasText: 'Data import' }));
    await page.keyboard.press('Enter');
    const jobs = page.getByRole('table', { name: 'Import jobs, newest first' });
    await jobs.waitFor();
    t.is(await page.getByRole('link', { name: 'New import' }).count(), 0);
    await axeCheck(page, t);
    await screenshot(page, 'import-reader-jobs');

    const before = await backend
      .knex('migration_import_job')
      .orderBy('id')
      .select('id', 'state', 'updated_at');
    await tabTo(page, jobs.getByRole('link', { name: 'Job 1', exact: true }));
    await page.keyboard.press('Enter');
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

test.serial(
  'the warnings table filters by severity and pages through 25 at a time, by keyboard',
  async (t) => {
    // Two rows with a birth date that is no date (errors), thirty with an unknown sex code (warnings).
    const file = await derivedPatientsCsv('warnings', (fields, index) => {
      if (index < 2) fields[1] = '1985-02-30';
      else if (index < 32) fields[14] = 'X';
    });
    const page = await browser.page(t);
    await page.goto(`${backend.base}/migration_import`);
    await signIn(page, 'olga');
    await page.getByRole('heading', { name: 'Data import' }).waitFor();
    await upload(page, file, 'warnclinic');
    await page.getByText('The source was uploaded.').waitFor();
    await press(page, 'Validate');
    await stateHeading(page, 'Invalid').waitFor();

    const warnings = page.getByRole('region', { name: 'Warnings' });
    const column = async (n: number) =>
      (await warnings.locator(`table tbody tr td:nth-child(${n})`).allInnerTexts()).map((cell) =>
        cell.trim(),
      );
    const shown = async () => ({ severities: await column(3), codes: [...new Set(await column(4))] });
    const pageStatus = () =>
      warnings.getByRole('navigation', { name: 'Warning pages' }).locator('.pagination-status');
    const show = warnings.getByRole('combobox', { name: 'Show' });

    // With errors, the table opens on them alone.
    t.is(await show.inputValue(), 'error');
    await eventually(
      t,
      shown,
      { severities: ['error', 'error'], codes: ['bad_date'] },
      'the errors only, by default',
    );
    await axeCheck(page, t);
    await screenshot(page, 'import-warnings-errors');

    await tabTo(page, show);
    await page.keyboard.press('ArrowDown');
    t.is(await show.inputValue(), 'warning');
    await eventually(
      t,
      shown,
      { severities: Array(25).fill('warning'), codes: ['unknown_sex_code'] },
      'the first 25 warnings, and nothing else',
    );
    t.is(await pageStatus().innerText(), 'Page 1');
    const firstRows = await column(1);
    await axeCheck(page, t);
    await screenshot(page, 'import-warnings-warnings');

    await tabTo(page, warnings.getByRole('button', { name: 'Next page' }));
    await page.keyboard.press('Enter');
    await eventually(
      t,
      shown,
      { severities: Array(5).fill('warning'), codes: ['unknown_sex_code'] },
      'the last 5 warnings on page 2',
    );
    t.is(await pageStatus().innerText(), 'Page 2');
    t.false(await warnings.getByRole('button', { name: 'Next page' }).isEnabled(), 'no page 3');
    const rows = [...firstRows, ...(await column(1))].map(Number);
    t.is(new Set(rows).size, 30, 'thirty different rows over the two pages');
    t.deepEqual(
      rows,
      [...rows].sort((a, b) => a - b),
      'in source order',
    );
    await axeCheck(page, t);
    await screenshot(page, 'import-warnings-page-2');

    await tabTo(page, show);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    t.is(await show.inputValue(), '');
    await eventually(
      t,
      async () => (await shown()).severities,
      ['error', 'error', ...Array(23).fill('warning')],
      'every severity, back on page 1',
    );
    t.is(await pageStatus().innerText(), 'Page 1');
    await tabTo(page, warnings.getByRole('button', { name: 'Next page' }));
    await page.keyboard.press('Enter');
    await eventually(t, async () => (await shown()).severities.length, 7, 'the last 7 on page 2');
    await axeCheck(page, t);
    await screenshot(page, 'import-warnings-all-page-2');
  },
);

test.serial(
  "the preview of an import that changes a patient imported before shows that patient's row before and after",
  async (t) => {
    // The same source system as the executed import: its first patient's family name changed.
    const file = await derivedPatientsCsv('update', (fields, index) => {
      if (index === 0) fields[8] = 'Smythe';
    });
    const page = await browser.page(t);
    await page.goto(`${backend.base}/migration_import`);
    await signIn(page, 'olga');
    await page.getByRole('heading', { name: 'Data import' }).waitFor();
    await upload(page, file, 'oldclinic');
    await page.getByText('The source was uploaded.').waitFor();
    await press(page, 'Validate');
    await stateHeading(page, 'Validated').waitFor();
    await press(page, 'Preview');
    t.deepEqual(await previewedPatients(page), ['Patients', '0', '1', '49']);
    const updates = page.getByRole('table', { name: 'First rows to update' });
    await updates.waitFor();
    const rows = updates.locator('tbody tr');
    t.is(await rows.count(), 1);
    const before = await rows.locator('td:nth-child(4)').innerText();
    const after = await rows.locator('td:nth-child(5)').innerText();
    t.regex(before, /Smith/);
    t.notRegex(before, /Smythe/);
    t.regex(after, /Smythe \(changed\)/);
    t.regex(after, /Maria/, 'the after side shows the whole record');
    t.notRegex(after, /Maria.*\(changed\)/, 'only what changed is marked');
    t.is(await page.getByRole('table', { name: 'First rows to create' }).count(), 0);
    t.is(
      await backend
        .knex('patients_patient')
        .where({ family_name: 'Smythe' })
        .count({ n: '*' })
        .first()
        .then((row) => Number(row?.n)),
      0,
      'the preview wrote nothing',
    );
    await axeCheck(page, t);
    await screenshot(page, 'import-preview-update');
  },
);

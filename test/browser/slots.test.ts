/**
 * Slots: the patients layer's patient page hosts `patient.chart`, `patient.actions` and
 * `patient.header`; the appointments and documents layers draw the patient's appointments and
 * documents in the chart, and chart_extras (a community fixture in test/fixtures/modules/
 * frontend-slots, found through WARD_MODULE_PATHS) adds a Print button, an alert for holders of
 * its permission, and a growth chart that throws. The throw costs only the chart's own part: a
 * small error box in its place, while the page, its Edit form and the other parts work.
 */
import path from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { FIXTURES } from '../helpers/cli.ts';
import {
  axeCheck,
  eventually,
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
let patientId: number;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients', 'documents', 'appointments', 'chart_extras'],
    users: [
      { username: 'cleo', roles: ['clinician'] },
      { username: 'rita', roles: ['receptionist'] },
      { username: 'chief', roles: ['admin'] },
    ],
    env: {
      WARD_MODULE_PATHS: [
        path.join(FIXTURES, 'modules', 'community'),
        path.join(FIXTURES, 'modules', 'frontend-slots'),
      ].join(':'),
    },
  });
  const [patient] = (await backend
    .knex('patients_patient')
    .insert({ mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' })
    .returning('id')) as Array<{ id: number }>;
  patientId = patient!.id;
  // Local times, as the pages show them: one appointment today, one tomorrow.
  const at = (days: number, hour: number) => {
    const date = new Date();
    date.setDate(date.getDate() + days);
    date.setHours(hour, 0, 0, 0);
    return date;
  };
  await backend.knex('appointments_appointment').insert(
    [
      [0, 'Blood test'],
      [1, 'Annual review'],
    ].map(([days, reason]) => ({
      patient_id: patientId,
      practitioner_name: 'Dr Hopper',
      start_at: at(days as number, 12),
      end_at: at(days as number, 13),
      status: 'booked',
      reason,
    })),
  );
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

async function openPatient(page: Page, username: string): Promise<void> {
  await page.goto(`${backend.base}/patients/${patientId}`);
  await signIn(page, username);
  await page.getByRole('heading', { level: 1, name: 'Lovelace, Ada' }).waitFor();
}

/** The modules whose parts the slot draws, in order, once the slot is on the page. */
function slotModules(page: Page, slot: string): Promise<string[]> {
  return page
    .locator(`[data-slot="${slot}"] > .slot-item`)
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-module') ?? ''));
}

async function press(page: Page, name: string, role: 'button' | 'link' = 'button'): Promise<void> {
  await tabTo(page, page.getByRole(role, { name, exact: true }));
  await page.keyboard.press('Enter');
}

test("a clinician's patient page shows the appointments and documents layers' parts, and the failing extension only as a small error box", async (t) => {
  const page = await browser.page(t);
  await openPatient(page, 'cleo');

  const appointments = page.getByRole('table', { name: 'Next appointments of Lovelace, Ada' });
  await appointments.getByRole('cell', { name: 'Annual review' }).waitFor();
  await page.getByRole('heading', { level: 2, name: 'Documents' }).waitFor();
  await page.getByText('No documents yet').waitFor();
  const failed = page.getByRole('alert').filter({ hasText: 'chart_extras' });
  t.regex(
    await failed.innerText(),
    /The chart_extras module's part of this page failed\s+the growth chart library is not loaded \(patient \d+\)/,
  );
  t.deepEqual(
    await slotModules(page, 'patient.chart'),
    ['appointments', 'chart_extras', 'documents'],
    'by order: appointments (10), the growth chart (15), documents (20)',
  );
  t.deepEqual(await slotModules(page, 'patient.actions'), ['chart_extras'], 'its Print button still works');
  await page.getByRole('button', { name: 'Print', exact: true }).waitFor();
  t.is(
    await page.locator('[data-slot="patient.header"]').count(),
    0,
    'the alert needs a permission cleo lacks',
  );
  await axeCheck(page, t);
  await screenshot(page, 'slots-patient-chart');

  // The host page works around the failed part: its own Edit form opens and closes.
  await press(page, 'Edit', 'link');
  await page.getByRole('textbox', { name: 'Family name', exact: true }).waitFor();
  await press(page, 'Cancel');
  await page.getByRole('link', { name: 'Edit' }).waitFor();

  // The documents part links to where a document is uploaded; the chart lists it afterwards.
  await press(page, 'Upload a document', 'link');
  await page.getByRole('heading', { name: 'Documents of Lovelace, Ada' }).waitFor();
  // The upload by keyboard is documents.test.ts's; here the file is set on the input.
  await page
    .getByLabel('File')
    .setInputFiles({ name: 'referral.txt', mimeType: 'text/plain', buffer: Buffer.from('Referral\n') });
  await press(page, 'Upload');
  await page.getByText('“referral.txt” was uploaded (9 bytes).').waitFor();
  await press(page, "The patient's record", 'link');
  const documents = page.getByRole('table', { name: 'Documents of Lovelace, Ada, newest first' });
  // Its title and its file name: both are referral.txt.
  await documents.getByRole('cell', { name: 'referral.txt', exact: true }).first().waitFor();
  t.is(await documents.getByRole('row').filter({ hasText: 'referral.txt' }).count(), 1);
  await page.getByRole('alert').filter({ hasText: 'chart_extras' }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'slots-patient-chart-document');
});

test('each part of a slot is drawn only for holders of its permission', async (t) => {
  const receptionist = await browser.page(t);
  await openPatient(receptionist, 'rita');
  await receptionist.getByRole('table', { name: 'Next appointments of Lovelace, Ada' }).waitFor();
  await receptionist.getByRole('alert').filter({ hasText: 'chart_extras' }).waitFor();
  await eventually(
    t,
    () => slotModules(receptionist, 'patient.chart'),
    ['appointments', 'chart_extras'],
    'no documents part: receptionists may not read documents',
  );
  await axeCheck(receptionist, t);
  await screenshot(receptionist, 'slots-patient-receptionist');

  const admin = await browser.page(t);
  await openPatient(admin, 'chief');
  const alert = admin.locator('[data-slot="patient.header"]').getByRole('alert');
  t.regex(await alert.innerText(), /Ada has an alert only its holders may read/);
  await admin.getByRole('heading', { level: 2, name: 'Documents' }).waitFor();
  await admin.getByRole('heading', { level: 2, name: 'Record access' }).waitFor();
  t.deepEqual(
    await slotModules(admin, 'patient.chart'),
    ['appointments', 'chart_extras', 'documents', 'base'],
    "the base layer's Record access (900) last, for base.audit.read holders only",
  );
  await axeCheck(admin, t);
  await screenshot(admin, 'slots-patient-admin');
});

test("the start page shows today's appointments, drawn by the appointments layer in the home.today slot", async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'cleo');
  await page.getByRole('heading', { level: 2, name: "Today's appointments" }).waitFor();
  const today = page.getByRole('table', { name: /^Appointments on / });
  await today.getByRole('cell', { name: 'Lovelace, Ada' }).waitFor();
  t.is(await today.locator('tbody tr').count(), 1, "tomorrow's appointment is not today's");
  t.deepEqual(await slotModules(page, 'home.today'), ['appointments']);
  await axeCheck(page, t);
  await screenshot(page, 'slots-home-today');
});

/**
 * The README's pictures of the day, taken from the real app with demo data: a clinic day of three
 * practitioners in the day grid, and the Practitioners page. Written to test/browser/artifacts/
 * on every run; with WARD_README_IMAGES=1 also to docs/images/, which is how the README's copies
 * are made again after the pages change:
 *   WARD_README_IMAGES=1 npx ava test/browser/readme-images.test.ts
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { ROOT } from '../../src/config.ts';
import {
  ARTIFACTS,
  axeCheck,
  launchBrowser,
  screenshot,
  signIn,
  startBackend,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;
/** Ada Lovelace's id, whose chart the README shows. */
let adaId: number;

/** A Wednesday far from today, so the picture never shows a "today" of its own. */
const DAY = '2030-03-06';

const PATIENTS = [
  ['MRN-1001', 'Lovelace', 'Ada'],
  ['MRN-1002', 'Babbage', 'Charles'],
  ['MRN-1003', 'Müller', 'Jürgen'],
  ['MRN-1004', "O'Brien", 'Siobhán'],
  ['MRN-1005', 'Okafor', 'Chidi'],
  ['MRN-1006', 'Nakamura', 'Yuki'],
] as const;

const PRACTITIONERS = [
  ['Dr. Mei Cho', 'General practice'],
  ['Dr. Alan Turing', 'Neurology'],
  ['Dr. Grace Hopper', 'Cardiology'],
] as const;

/** Practitioner, patient, start (HH:MM local), minutes, reason, status. */
const DAY_PLAN: ReadonlyArray<readonly [number, number, string, number, string, string]> = [
  [0, 0, '08:30', 20, 'Blood pressure check', 'fulfilled'],
  [0, 1, '09:00', 30, 'Annual check-up', 'arrived'],
  [0, 2, '10:00', 15, 'Vaccination', 'booked'],
  [0, 3, '11:30', 30, 'Follow-up', 'booked'],
  [1, 4, '09:00', 45, 'Headaches', 'arrived'],
  [1, 5, '10:30', 30, 'EEG results', 'booked'],
  [1, 0, '14:00', 60, 'Memory assessment', 'booked'],
  [2, 2, '08:00', 30, 'ECG', 'fulfilled'],
  [2, 3, '09:30', 30, 'Palpitations', 'noshow'],
  [2, 1, '13:00', 45, 'Echocardiogram', 'booked'],
];

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients', 'appointments'],
    users: [{ username: 'ada', roles: ['admin'] }],
  });
  const { knex } = backend;
  const patients = (await knex('patients_patient')
    .insert(PATIENTS.map(([mrn, family, given]) => ({ mrn, family_name: family, given_name: given })))
    .returning('id')) as Array<{ id: number }>;
  adaId = patients[0]!.id;
  await knex('patients_patient').where({ id: adaId }).update({
    birth_date: '1815-12-10',
    sex: 'female',
    phone: '+44 20 7946 0018',
    email: 'ada@example.org',
  });
  const practitioners = (await knex('appointments_practitioner')
    .insert(
      PRACTITIONERS.map(([name, specialty]) => ({
        name,
        folded_name: name
          .toLowerCase()
          .replace(/[^a-z]+/g, ' ')
          .trim(),
        specialty,
      })),
    )
    .returning(['id', 'name'])) as Array<{ id: number; name: string }>;
  const [year, month, date] = DAY.split('-').map(Number) as [number, number, number];
  await knex('appointments_appointment').insert(
    DAY_PLAN.map(([practitioner, patient, time, minutes, reason, status]) => {
      const [hour, minute] = time.split(':').map(Number) as [number, number];
      const start = new Date(year, month - 1, date, hour, minute);
      return {
        patient_id: patients[patient]!.id,
        practitioner_id: practitioners[practitioner]!.id,
        practitioner_name: practitioners[practitioner]!.name,
        start_at: start,
        end_at: new Date(start.getTime() + minutes * 60_000),
        status,
        reason,
        ...(status === 'cancelled' ? { cancellation_reason: 'Patient asked' } : {}),
      };
    }),
  );
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** The artifact, and with WARD_README_IMAGES=1 its copy for the README. */
async function picture(page: Parameters<typeof screenshot>[0], name: string): Promise<void> {
  await screenshot(page, name);
  if (process.env.WARD_README_IMAGES === '1')
    await copyFile(path.join(ARTIFACTS, `${name}.png`), path.join(ROOT, 'docs', 'images', `${name}.png`));
}

test.serial('the day grid of a clinic day with three practitioners', async (t) => {
  const page = await browser.page(t);
  await page.goto(`${backend.base}/appointments?date=${DAY}`);
  await signIn(page, 'ada');
  await page.getByRole('table', { name: 'Appointments on Wednesday, March 6, 2030' }).waitFor();
  // Every appointment drawn, with its patient's name read, before the picture is taken.
  for (const [, , , , reason] of DAY_PLAN)
    await page.locator('.appointments-grid').getByText(reason).waitFor();
  await page.locator('.appointments-grid').getByText('Nakamura, Yuki').waitFor();
  t.deepEqual(await page.locator('.appointments-grid thead th').allInnerTexts(), [
    'Time',
    'Dr. Alan Turing',
    'Dr. Grace Hopper',
    'Dr. Mei Cho',
  ]);
  await axeCheck(page, t);
  await picture(page, 'appointments-day');
});

test.serial('the Practitioners page', async (t) => {
  const page = await browser.page(t);
  await page.goto(`${backend.base}/appointments/practitioners`);
  await signIn(page, 'ada');
  await page
    .getByRole('table', { name: 'Practitioners' })
    .getByRole('cell', { name: 'Cardiology' })
    .waitFor();
  await axeCheck(page, t);
  await picture(page, 'practitioners');
});

test.serial("a patient's chart with the appointments in its panel", async (t) => {
  const page = await browser.page(t);
  await page.goto(`${backend.base}/patients/${adaId}`);
  await signIn(page, 'ada');
  await page.getByRole('heading', { level: 1, name: 'Lovelace, Ada' }).waitFor();
  // The appointments layer's part of the chart, drawn before the picture is taken.
  await page.getByText('Memory assessment').waitFor();
  await axeCheck(page, t);
  await picture(page, 'patient-chart');
});

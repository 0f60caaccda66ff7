/**
 * The appointments layer end to end, by keyboard: book an appointment for a patient found by
 * search (an end before the start is refused at its field, and nothing is saved), see it in the
 * day list of its practitioner and of its patient, and change its status; then the week view, per
 * practitioner and per patient. Serial: the booking test starts from an empty table.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { insertPatients } from '../modules/helpers.ts';
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

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients', 'appointments'],
    users: [{ username: 'rita', roles: ['receptionist'] }],
  });
  await insertPatients(backend.knex, [
    { mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' },
    { mrn: 'MRN-0043', family_name: 'Babbage', given_name: 'Charles' },
  ]);
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Tab to the control and type, as a keyboard user fills a form. */
async function typeInto(page: Page, label: string, text: string): Promise<void> {
  await tabTo(page, page.getByLabel(label));
  await page.keyboard.type(text);
}

async function press(page: Page, name: string, role: 'button' | 'link' = 'button'): Promise<void> {
  await tabTo(page, page.getByRole(role, { name, exact: true }));
  await page.keyboard.press('Enter');
}

test.serial(
  'a receptionist books an appointment by keyboard, finds it by practitioner and by patient, and changes its status',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'rita');

    await tabTo(page, sidebar(page).filter({ hasText: 'Appointments' }));
    await page.keyboard.press('Enter');
    await page.getByText(/^No appointments on this day/).waitFor();
    await axeCheck(page, t);
    await screenshot(page, 'appointments-empty');

    await press(page, 'New appointment', 'link');
    await page.getByRole('heading', { name: 'New appointment' }).waitFor();
    await typeInto(page, 'Patient: search by name or MRN', 'lovel');
    await page.keyboard.press('Enter');
    await press(page, 'Choose Lovelace, Ada (MRN MRN-0042)');
    const practitioner = page.locator('#field-practitionerName');
    await page.getByText('Lovelace, Ada').waitFor();
    await focused(t, practitioner, 'choosing the patient moves on to the practitioner');
    await page.keyboard.type('Dr Hopper');
    await typeInto(page, 'Start time', '0930A');
    await typeInto(page, 'End time', '0900A');
    await typeInto(page, 'Reason', 'Annual review');
    await axeCheck(page, t);
    await screenshot(page, 'appointments-new');
    await press(page, 'Book appointment');

    const end = page.locator('#field-endAt');
    await page.locator('#field-endAt-error').waitFor();
    t.is(await page.locator('#field-endAt-error').innerText(), 'must be after startAt');
    t.is(await end.getAttribute('aria-invalid'), 'true');
    await focused(t, end, 'the field in error has the focus');
    t.deepEqual(await backend.knex('appointments_appointment').select('id'), [], 'nothing was saved');
    await axeCheck(page, t);
    await screenshot(page, 'appointments-new-invalid');

    await page.keyboard.type('1000A');
    await press(page, 'Book appointment');
    await page.getByText('The appointment was booked.').waitFor();
    await page.getByRole('heading', { name: /^Appointment on / }).waitFor();
    const [saved] = await backend.knex('appointments_appointment').select('*');
    t.like(saved, { practitioner_name: 'Dr Hopper', status: 'booked', reason: 'Annual review' });
    t.is((saved.end_at.getTime() - saved.start_at.getTime()) / 60_000, 30, 'from 9:30 to 10:00');
    await axeCheck(page, t);
    await screenshot(page, 'appointments-booked');

    await press(page, "The practitioner's day", 'link');
    const byPractitioner = page.getByRole('table', { name: /^Appointments with Dr Hopper on / });
    await byPractitioner.getByRole('link', { name: 'Lovelace, Ada' }).waitFor();
    t.is(await page.locator('#field-practitioner').inputValue(), 'Dr Hopper');
    await axeCheck(page, t);
    await screenshot(page, 'appointments-day-practitioner');

    await page.goBack();
    await press(page, "This patient's appointments that day", 'link');
    const byPatient = page.getByRole('table', { name: /^Appointments for Lovelace, Ada on / });
    await byPatient.getByRole('cell', { name: 'Dr Hopper' }).waitFor();
    await axeCheck(page, t);
    await screenshot(page, 'appointments-day-patient');

    await tabTo(page, byPatient.getByRole('link', { name: /09:30|9:30/ }));
    await page.keyboard.press('Enter');
    const status = page.getByLabel('New status');
    await tabTo(page, status);
    await page.keyboard.press('ArrowDown');
    t.is(await status.inputValue(), 'arrived');
    await press(page, 'Change status');
    await page.getByText('The status is now Arrived.').waitFor();
    t.like(await backend.knex('appointments_appointment').first('status'), { status: 'arrived' });
    await axeCheck(page, t);
    await screenshot(page, 'appointments-status');

    await press(page, 'Back to the appointments', 'link');
    await page.getByRole('cell', { name: 'Arrived' }).waitFor();
    t.pass();
  },
);

test.serial(
  'the week view lists a week, Monday first, per practitioner and per patient, by keyboard',
  async (t) => {
    const ids = Object.fromEntries(
      (await backend.knex('patients_patient').select('id', 'family_name')).map((row) => [
        row.family_name,
        row.id,
      ]),
    );
    // Local times, as the page shows them; the week of Monday 4 March 2030, and a day either side.
    const at = (day: number, hour: number) => new Date(2030, 2, day, hour);
    const book = (patient: string, practitioner: string, day: number, hour: number) => ({
      patient_id: ids[patient],
      practitioner_name: practitioner,
      start_at: at(day, hour),
      end_at: at(day, hour + 1),
      status: 'booked',
      reason: `Week test ${day}`,
    });
    await backend
      .knex('appointments_appointment')
      .insert([
        book('Lovelace', 'Dr Hopper', 3, 9),
        book('Lovelace', 'Dr Hopper', 4, 9),
        book('Lovelace', 'Dr Turing', 6, 11),
        book('Babbage', 'Dr Hopper', 10, 14),
        book('Babbage', 'Dr Hopper', 11, 9),
      ]);

    const page = await browser.page(t);
    // A deep link names the day; the rest is chosen on the page.
    await page.goto(`${backend.base}/appointments?date=2030-03-06`);
    await signIn(page, 'rita');
    await page.getByRole('table', { name: 'Appointments on Wednesday, March 6, 2030' }).waitFor();

    const list = page.locator('.table-wrap table');
    const rows = async () =>
      (await list.locator('tbody tr').all()).length === 0
        ? []
        : Promise.all(
            (await list.locator('tbody tr').all()).map(async (row) => {
              const cells = (await row.getByRole('cell').allInnerTexts()).map((cell) => cell.trim());
              return [cells[0]!.split(' ')[0]!, cells[1]!, cells[2]!];
            }),
          );
    const show = page.getByLabel('Show');
    await tabTo(page, show);
    await page.keyboard.press('ArrowDown');
    t.is(await show.inputValue(), 'week');
    await page.getByRole('table', { name: /^Appointments in the week of Monday, March 4, 2030$/ }).waitFor();
    await eventually(
      t,
      rows,
      [
        ['Mon,', 'Lovelace, Ada', 'Dr Hopper'],
        ['Wed,', 'Lovelace, Ada', 'Dr Turing'],
        ['Sun,', 'Babbage, Charles', 'Dr Hopper'],
      ],
      'the week from Monday to Sunday, and nothing of the weeks either side',
    );
    t.regex(
      await page.locator('.page-description').innerText(),
      /^Week of Monday, March 4, 2030 to Sunday, March 10, 2030$/,
    );
    t.is(await page.getByRole('button', { name: 'Next week' }).count(), 1);
    await axeCheck(page, t);
    await screenshot(page, 'appointments-week');

    const practitioner = page.getByLabel('Practitioner');
    await tabTo(page, practitioner);
    await page.keyboard.press('ArrowDown');
    t.is(await practitioner.inputValue(), 'Dr Hopper');
    await page
      .getByRole('table', { name: 'Appointments with Dr Hopper in the week of Monday, March 4, 2030' })
      .waitFor();
    await eventually(
      t,
      rows,
      [
        ['Mon,', 'Lovelace, Ada', 'Dr Hopper'],
        ['Sun,', 'Babbage, Charles', 'Dr Hopper'],
      ],
      "Dr Hopper's week",
    );
    await axeCheck(page, t);
    await screenshot(page, 'appointments-week-practitioner');

    await tabTo(page, practitioner);
    await page.keyboard.press('ArrowUp');
    t.is(await practitioner.inputValue(), '');
    await tabTo(page, page.getByLabel('Patient: search by name or MRN'));
    await page.keyboard.type('lovel');
    await page.keyboard.press('Enter');
    await press(page, 'Choose Lovelace, Ada (MRN MRN-0042)');
    await page
      .getByRole('table', { name: 'Appointments for Lovelace, Ada in the week of Monday, March 4, 2030' })
      .waitFor();
    await eventually(
      t,
      rows,
      [
        ['Mon,', 'Lovelace, Ada', 'Dr Hopper'],
        ['Wed,', 'Lovelace, Ada', 'Dr Turing'],
      ],
      "Ada Lovelace's week",
    );
    await axeCheck(page, t);
    await screenshot(page, 'appointments-week-patient');

    await press(page, 'Previous week');
    await page
      .getByRole('table', { name: 'Appointments for Lovelace, Ada in the week of Monday, February 25, 2030' })
      .waitFor();
    await eventually(
      t,
      rows,
      [['Sun,', 'Lovelace, Ada', 'Dr Hopper']],
      'the week before ends on Sunday 3 March',
    );
    await press(page, 'Next week');
    await press(page, 'Next week');
    await page.getByText('No appointments for Lovelace, Ada this week').waitFor();
    await axeCheck(page, t);
  },
);

/**
 * The appointments layer end to end, by keyboard: book an appointment for a patient found by
 * search with a practitioner chosen from the list (an end before the start is refused at its
 * field, and nothing is saved); the practitioner's day grid, kept in the address over a reload;
 * a busy practitioner refused, and booked anyway only by a user allowed to overbook; reschedule,
 * cancel with a reason, mark a no-show; the day grid with a column per practitioner and the week
 * grid; the start page of a practitioner; the grid at 390 px and the day printed as a list.
 * Serial: the booking test starts from an empty table.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { insertPatients } from '../modules/helpers.ts';
import {
  appointmentRow,
  axeCheck,
  eventually,
  focused,
  gridRows,
  insertPractitioners,
  launchBrowser,
  localTime,
  press,
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
const ids: Record<string, number> = {};

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients', 'appointments'],
    users: [
      { username: 'rita', roles: ['receptionist'] },
      { username: 'cleo', roles: ['clinician'] },
      { username: 'hopper', roles: ['clinician'] },
    ],
  });
  const { knex } = backend;
  const [lovelace, babbage] = await insertPatients(knex, [
    { mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' },
    { mrn: 'MRN-0043', family_name: 'Babbage', given_name: 'Charles' },
  ]);
  ids.Lovelace = lovelace!;
  ids.Babbage = babbage!;
  Object.assign(
    ids,
    await insertPractitioners(knex, [{ name: 'Dr Hopper', username: 'hopper' }, { name: 'Dr Turing' }]),
  );
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

/** Choose an option of a select by keyboard: focus it, then type the start of the option's label. */
async function choose(page: Page, label: string, option: string): Promise<void> {
  await tabTo(page, page.getByLabel(label, { exact: true }));
  await page.keyboard.type(option);
}

const row = (patient: string, practitioner: string, start: Date, minutes: number, status = 'booked') =>
  appointmentRow(ids, { patient, practitioner, start, minutes, status, reason: `Visit of ${patient}` });

test.serial(
  'a receptionist books with a practitioner from the list, by keyboard, and sees the practitioner’s day, kept over a reload',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'rita');

    await tabTo(page, sidebar(page).filter({ hasText: 'Appointments' }));
    await page.keyboard.press('Enter');
    await page.getByText(/^No appointments on this day/).waitFor();
    await axeCheck(page, t);

    await press(page, 'New appointment', 'link');
    await page.getByRole('heading', { name: 'New appointment' }).waitFor();
    await typeInto(page, 'Patient: search by name or MRN', 'lovel');
    await page.keyboard.press('Enter');
    await press(page, 'Choose Lovelace, Ada (MRN MRN-0042)');
    const practitioner = page.locator('#field-practitionerId');
    await page.getByText('Lovelace, Ada').waitFor();
    await focused(t, practitioner, 'choosing the patient moves on to the practitioner');
    t.deepEqual(await practitioner.locator('option').allInnerTexts(), [
      'Choose a practitioner',
      'Dr Hopper',
      'Dr Turing',
    ]);
    await page.keyboard.type('Dr H');
    t.is(await practitioner.inputValue(), String(ids['Dr Hopper']));
    await typeInto(page, 'Date', '03022030');
    await typeInto(page, 'Start time', '0930A');
    await typeInto(page, 'End time', '0900A');
    await typeInto(page, 'Reason', 'Annual review');
    await press(page, 'Book appointment');
    await page.locator('#field-endAt-error').waitFor();
    t.is(await page.locator('#field-endAt-error').innerText(), 'The end must be after the start.');
    t.deepEqual(await backend.knex('appointments_appointment').select('id'), [], 'nothing was saved');

    await page.keyboard.type('1000A');
    await press(page, 'Book appointment');
    await page.getByText('The appointment was booked.').waitFor();
    const [saved] = await backend.knex('appointments_appointment').select('*');
    t.like(saved, { practitioner_id: ids['Dr Hopper'], status: 'booked', overbooked: false });
    await axeCheck(page, t);
    await screenshot(page, 'appointments-booked');

    await press(page, "The practitioner's day", 'link');
    await page
      .getByRole('table', { name: 'Appointments with Dr Hopper on Saturday, March 2, 2030' })
      .waitFor();
    await eventually(
      t,
      () => gridRows(page),
      [['09:30 AM', '09:30 AM–10:00 AM Lovelace, Ada Annual review']],
      'one appointment',
    );
    t.deepEqual(await page.locator('.appointments-grid thead th').allInnerTexts(), ['Time', 'Dr Hopper']);
    t.is(new URL(page.url()).search, `?date=2030-03-02&practitioner=${ids['Dr Hopper']}`);
    await page.reload();
    await page
      .getByRole('table', { name: 'Appointments with Dr Hopper on Saturday, March 2, 2030' })
      .waitFor();
    t.is(await page.getByLabel('Practitioner').inputValue(), String(ids['Dr Hopper']));
    await axeCheck(page, t);
    await screenshot(page, 'appointments-day-practitioner');
  },
);

test.serial(
  'a busy practitioner is said with the other time; only a user allowed to overbook may book anyway, and it is recorded',
  async (t) => {
    const fill = async (page: Page) => {
      await page.goto(`${backend.base}/appointments/new?date=2030-03-02&practitioner=${ids['Dr Hopper']}`);
      await page.getByRole('heading', { name: 'New appointment' }).waitFor();
      await typeInto(page, 'Patient: search by name or MRN', 'babb');
      await page.keyboard.press('Enter');
      await press(page, 'Choose Babbage, Charles (MRN MRN-0043)');
      await typeInto(page, 'Start time', '0945A');
      await typeInto(page, 'End time', '1015A');
      await press(page, 'Book appointment');
      await page.getByText('The practitioner is busy at that time').waitFor();
    };
    const receptionist = await browser.page(t);
    await receptionist.goto(backend.base);
    await signIn(receptionist, 'rita');
    await sidebar(receptionist).filter({ hasText: 'Appointments' }).waitFor();
    await fill(receptionist);
    t.regex(
      await receptionist.locator('.banner-warning').innerText(),
      /They already have an appointment on Saturday, March 2, 2030, 09:30 AM.10:00 AM\.\s+Choose another time or practitioner\.$/,
    );
    t.is(await receptionist.getByRole('button', { name: 'Book anyway' }).count(), 0);
    t.is((await backend.knex('appointments_appointment').select('id')).length, 1, 'nothing was saved');
    await axeCheck(receptionist, t);
    await screenshot(receptionist, 'appointments-busy');

    const clinician = await browser.page(t);
    await clinician.goto(backend.base);
    await signIn(clinician, 'cleo');
    await sidebar(clinician).filter({ hasText: 'Appointments' }).waitFor();
    await fill(clinician);
    await press(clinician, 'Book anyway');
    await clinician.getByText('The appointment was booked.').waitFor();
    await clinician.getByText('Yes: booked over another appointment of the practitioner').waitFor();
    t.deepEqual(await backend.knex('appointments_appointment').orderBy('id').pluck('overbooked'), [
      false,
      true,
    ]);
    await axeCheck(clinician, t);
    await screenshot(clinician, 'appointments-overbooked');
  },
);

test.serial(
  'a clinician reschedules (busy check included), cancels with a reason and marks a no-show',
  async (t) => {
    const [first, second] = (await backend
      .knex('appointments_appointment')
      .orderBy('id')
      .pluck('id')) as number[];
    const page = await browser.page(t);
    await page.goto(`${backend.base}/appointments/${second}`);
    await signIn(page, 'cleo');
    await page.getByRole('heading', { name: 'Reschedule' }).waitFor();
    await typeInto(page, 'Start time', '1100A');
    await typeInto(page, 'End time', '1130A');
    await press(page, 'Move the appointment');
    await page.getByText('The appointment was moved.').waitFor();
    t.like(await backend.knex('appointments_appointment').where({ id: second }).first(), {
      start_at: localTime(2030, 3, 2, 11),
      overbooked: false,
    });
    // Back over the first one: refused, the first one's time named.
    await typeInto(page, 'Start time', '0930A');
    await press(page, 'Move the appointment');
    await page.getByText('The practitioner is busy at that time').waitFor();
    await axeCheck(page, t);
    await screenshot(page, 'appointments-reschedule-busy');

    await press(page, 'Cancel the appointment');
    const reason = page.locator('#field-cancellationReason');
    await page.locator('#field-cancellationReason-error').waitFor();
    t.is(
      await page.locator('#field-cancellationReason-error').innerText(),
      'Say why the appointment is cancelled.',
    );
    await focused(t, reason, 'the missing reason has the focus');
    t.is(
      (await backend.knex('appointments_appointment').where({ id: second }).first('status')).status,
      'booked',
    );
    await page.keyboard.type('Patient asked to move to another clinic');
    await press(page, 'Cancel the appointment');
    await page.getByText('The appointment was cancelled.').waitFor();
    await page.getByText('Patient asked to move to another clinic').waitFor();
    t.like(await backend.knex('appointments_appointment').where({ id: second }).first(), {
      status: 'cancelled',
      cancellation_reason: 'Patient asked to move to another clinic',
    });
    t.is(
      await page.getByRole('heading', { name: 'Reschedule' }).count(),
      0,
      'a cancelled appointment is not moved',
    );
    await axeCheck(page, t);
    await screenshot(page, 'appointments-cancelled');

    await page.goto(`${backend.base}/appointments/${first}`);
    await press(page, 'Mark as did not attend');
    await page.getByText('The status is now Did not attend.').waitFor();
    t.is(
      (await backend.knex('appointments_appointment').where({ id: first }).first('status')).status,
      'noshow',
    );
  },
);

test.serial(
  'the day grid has a column per practitioner and the week grid a column per day; the address keeps them for Back',
  async (t) => {
    await backend
      .knex('appointments_appointment')
      .insert([
        row('Lovelace', 'Dr Hopper', localTime(2030, 3, 6, 9), 30),
        row('Babbage', 'Dr Turing', localTime(2030, 3, 6, 9, 15), 30),
        row('Babbage', 'Dr Hopper', localTime(2030, 3, 6, 14), 60, 'arrived'),
        row('Lovelace', 'Dr Turing', localTime(2030, 3, 4, 11), 30),
        row('Lovelace', 'Dr Hopper', localTime(2030, 3, 11, 9), 30),
      ]);
    const page = await browser.page(t);
    await page.goto(`${backend.base}/appointments?date=2030-03-06`);
    await signIn(page, 'rita');
    await page.getByRole('table', { name: 'Appointments on Wednesday, March 6, 2030' }).waitFor();
    t.deepEqual(await page.locator('.appointments-grid thead th').allInnerTexts(), [
      'Time',
      'Dr Hopper',
      'Dr Turing',
    ]);
    await eventually(
      t,
      () => gridRows(page),
      [
        [
          '09:00 AM',
          '09:00 AM–09:30 AM Lovelace, Ada Visit of Lovelace',
          '09:15 AM–09:45 AM Babbage, Charles Visit of Babbage',
        ],
        ['02:00 PM', '02:00 PM–03:00 PM Babbage, Charles Visit of Babbage Arrived', ''],
      ],
      'two practitioners side by side, a row per half hour',
    );
    await axeCheck(page, t);
    await screenshot(page, 'appointments-day-grid');

    await choose(page, 'Show', 'Week');
    await page.getByRole('table', { name: 'Appointments in the week of Monday, March 4, 2030' }).waitFor();
    t.is(new URL(page.url()).search, '?date=2030-03-06&view=week');
    await choose(page, 'Practitioner', 'Dr T');
    await page
      .getByRole('table', { name: 'Appointments with Dr Turing in the week of Monday, March 4, 2030' })
      .waitFor();
    t.deepEqual((await page.locator('.appointments-grid thead th').allInnerTexts()).slice(0, 3), [
      'Time',
      'Mon, Mar 4',
      'Tue, Mar 5',
    ]);
    await eventually(
      t,
      async () =>
        (await gridRows(page)).map((cells) => [cells[0], cells.findIndex((cell, i) => i > 0 && cell !== '')]),
      [
        ['09:00 AM', 3],
        ['11:00 AM', 1],
      ],
      "Dr Turing's week: Wednesday at 9:15, Monday at 11:00",
    );
    t.is(
      await page.evaluate(
        `document.querySelector('.table-wrap').scrollWidth - document.querySelector('.table-wrap').clientWidth`,
      ),
      0,
      'the week fits beside the menu',
    );
    await axeCheck(page, t);
    await screenshot(page, 'appointments-week-grid');

    await tabTo(page, page.getByRole('link', { name: '11:00 AM–11:30 AM' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /^Appointment on Monday, March 4, 2030/ }).waitFor();
    await page.goBack();
    await page
      .getByRole('table', { name: 'Appointments with Dr Turing in the week of Monday, March 4, 2030' })
      .waitFor();
    t.pass();
  },
);

test.serial(
  'at 390 px the grid is a list without sideways scrolling, and the day prints as a list',
  async (t) => {
    const page = await browser.page(t);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${backend.base}/appointments?date=2030-03-06`);
    await signIn(page, 'rita');
    await page.getByRole('table', { name: 'Appointments on Wednesday, March 6, 2030' }).waitFor();
    await page.getByRole('link', { name: '09:15 AM–09:45 AM' }).waitFor();
    const widths = (await page.evaluate(`({
    page: document.documentElement.scrollWidth,
    grid: [...document.querySelectorAll('.table-wrap')].map((wrap) => wrap.scrollWidth - wrap.clientWidth),
  })`)) as { page: number; grid: number[] };
    t.true(widths.page <= 390, `the page is ${widths.page} px wide`);
    t.deepEqual(widths.grid, [0], 'the grid does not scroll sideways');
    t.deepEqual(
      await page.evaluate(
        `[...document.querySelectorAll('.appointments-grid td:not(.cell-free)')].map((cell) => getComputedStyle(cell, '::before').content)`,
      ),
      ['"Dr Hopper"', '"Dr Turing"', '"Dr Hopper"'],
      'each entry is headed by its practitioner',
    );
    await axeCheck(page, t);
    await screenshot(page, 'appointments-day-390');

    await page.emulateMedia({ media: 'print' });
    t.false(await page.locator('.appointments-grid').isVisible());
    t.false(await page.locator('.sidebar').isVisible());
    const printed = page.locator('.appointments-print li');
    t.deepEqual(
      (await printed.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim()),
      [
        'Wed, Mar 6 09:00 AM–09:30 AM Lovelace, Ada (MRN MRN-0042) · Dr Hopper · Visit of Lovelace · Booked',
        'Wed, Mar 6 09:15 AM–09:45 AM Babbage, Charles (MRN MRN-0043) · Dr Turing · Visit of Babbage · Booked',
        'Wed, Mar 6 02:00 PM–03:00 PM Babbage, Charles (MRN MRN-0043) · Dr Hopper · Visit of Babbage · Arrived',
      ],
    );
    const printWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    t.true(printWidth <= 390, `printed, the page is ${printWidth} px wide`);
    await screenshot(page, 'appointments-day-print');
  },
);

test.serial(
  "the start page shows the signed-in practitioner's appointments today, others the clinic's",
  async (t) => {
    const today = new Date();
    const todayAt = (hour: number) => new Date(today.getFullYear(), today.getMonth(), today.getDate(), hour);
    await backend
      .knex('appointments_appointment')
      .insert([row('Lovelace', 'Dr Hopper', todayAt(8), 30), row('Babbage', 'Dr Turing', todayAt(8), 30)]);
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'hopper');
    const mine = page.getByRole('region', { name: 'Your appointments today (Dr Hopper)' });
    await mine.getByRole('cell', { name: 'Lovelace, Ada' }).waitFor();
    t.is(await mine.getByRole('cell', { name: 'Babbage, Charles' }).count(), 0);
    await axeCheck(page, t);
    await screenshot(page, 'appointments-home-practitioner');

    const other = await browser.page(t);
    await other.goto(backend.base);
    await signIn(other, 'rita');
    const clinic = other.getByRole('region', { name: "Today's appointments" });
    await clinic.getByRole('cell', { name: 'Babbage, Charles' }).waitFor();
    await clinic.getByRole('cell', { name: 'Lovelace, Ada' }).waitFor();
  },
);

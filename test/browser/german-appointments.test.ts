/**
 * The appointments layer in a de-DE browser, the whole day's work in German: book with a
 * practitioner from the list; a busy practitioner said with the other time in German words and
 * dates, booked anyway only by a user allowed to; reschedule, cancel with a reason, no-show; the
 * day grid (a column per practitioner) and week grid (a column per day) with German dates, kept in
 * the address for reload and Back; the grid at 390 px and the day printed as a list; the start
 * page's appointments today. Serial: the booking test starts from an empty table.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { insertPatients } from '../modules/helpers.ts';
import {
  appointmentRow,
  axeCheck,
  eventually,
  germanPage,
  gridRows,
  insertPractitioners,
  launchBrowser,
  localTime,
  press,
  screenshot,
  startBackend,
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
  const [muller, obrien] = await insertPatients(knex, [
    { mrn: 'MRN-0042', family_name: 'Müller', given_name: 'Jürgen' },
    { mrn: 'MRN-0043', family_name: "O'Brien", given_name: 'Siobhán' },
  ]);
  ids.Müller = muller!;
  ids["O'Brien"] = obrien!;
  Object.assign(
    ids,
    await insertPractitioners(knex, [
      { name: 'Dr. Grace Hopper', username: 'hopper' },
      { name: 'Dr. Alan Turing' },
    ]),
  );
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Finds a patient in the booking form's search and chooses them. */
async function choosePatient(page: Page, typed: string, shown: string): Promise<void> {
  await page.getByLabel('Patient/in: nach Name oder MRN suchen').fill(typed);
  await page.keyboard.press('Enter');
  await press(page, `${shown} auswählen`);
}

const row = (patient: string, practitioner: string, start: Date, minutes: number, status = 'booked') =>
  appointmentRow(ids, { patient, practitioner, start, minutes, status, reason: `Kontrolle ${patient}` });

test.serial('a de-DE receptionist books in German and meets a busy practitioner in German', async (t) => {
  const page = await germanPage(browser, t, backend, 'rita');
  await page.getByRole('navigation', { name: 'Module' }).getByRole('link', { name: 'Termine' }).click();
  await page.getByText(/^Keine Termine an diesem Tag/).waitFor();
  await press(page, 'Neuer Termin', 'link');
  await page.getByRole('heading', { name: 'Neuer Termin' }).waitFor();
  await choosePatient(page, 'muller', 'Müller, Jürgen (MRN MRN-0042)');
  const practitioner = page.locator('#field-practitionerId');
  t.deepEqual(await practitioner.locator('option').allInnerTexts(), [
    'Behandler/in wählen',
    'Dr. Alan Turing',
    'Dr. Grace Hopper',
  ]);
  await practitioner.selectOption({ label: 'Dr. Grace Hopper' });
  await page.getByLabel('Datum').fill('2030-03-02');
  await page.getByLabel('Beginn').fill('10:00');
  await page.getByLabel('Ende').fill('09:30');
  await page.getByLabel('Anlass').fill('Jahreskontrolle');
  await press(page, 'Termin buchen');
  await page.locator('#field-endAt-error').waitFor();
  t.is(await page.locator('#field-endAt-error').innerText(), 'Das Ende muss nach dem Beginn liegen.');
  await axeCheck(page, t);
  await screenshot(page, 'german-appointments-end-before-start');
  t.deepEqual(await backend.knex('appointments_appointment').select('id'), [], 'nothing was saved');
  await page.getByLabel('Beginn').fill('09:30');
  await page.getByLabel('Ende').fill('10:00');
  await press(page, 'Termin buchen');
  await page.getByText('Der Termin wurde gebucht.').waitFor();
  await page.getByRole('heading', { name: 'Termin am Samstag, 2. März 2030 um 09:30' }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'german-appointments-booked');

  await page.goto(`${backend.base}/appointments/new?date=2030-03-02&practitioner=${ids['Dr. Grace Hopper']}`);
  await choosePatient(page, 'obrien', "O'Brien, Siobhán (MRN MRN-0043)");
  await page.getByLabel('Beginn').fill('09:45');
  await page.getByLabel('Ende').fill('10:15');
  await press(page, 'Termin buchen');
  const busy = page.locator('.banner-warning');
  await busy.getByText('Die Behandlerin oder der Behandler ist zu dieser Zeit belegt').waitFor();
  t.regex(
    (await busy.innerText()).replace(/\s+/g, ' '),
    /Es gibt bereits einen Termin am Samstag, 2\. März 2030, 09:30.10:00\. Wählen Sie eine andere Zeit oder eine andere Behandlerin \/ einen anderen Behandler\.$/,
  );
  t.is(await page.getByRole('button', { name: 'Trotzdem buchen' }).count(), 0);
  t.is((await backend.knex('appointments_appointment').select('id')).length, 1, 'nothing was saved');
  await axeCheck(page, t);
  await screenshot(page, 'german-appointments-busy');
});

test.serial(
  'a de-DE clinician books anyway, reschedules, cancels with a reason and marks a no-show',
  async (t) => {
    const page = await germanPage(
      browser,
      t,
      backend,
      'cleo',
      `/appointments/new?date=2030-03-02&practitioner=${ids['Dr. Grace Hopper']}`,
    );
    await choosePatient(page, 'obrien', "O'Brien, Siobhán (MRN MRN-0043)");
    await page.getByLabel('Beginn').fill('09:45');
    await page.getByLabel('Ende').fill('10:15');
    await press(page, 'Termin buchen');
    await page.getByText(/oder buchen Sie trotzdem: der Termin wird als überbucht markiert/).waitFor();
    await press(page, 'Trotzdem buchen');
    await page.getByText('Der Termin wurde gebucht.').waitFor();
    await page
      .getByText('Ja: über einen anderen Termin derselben Behandlerin / desselben Behandlers gebucht')
      .waitFor();
    t.deepEqual(await backend.knex('appointments_appointment').orderBy('id').pluck('overbooked'), [
      false,
      true,
    ]);
    await axeCheck(page, t);
    await screenshot(page, 'german-appointments-overbooked');

    await page.getByRole('heading', { name: 'Verschieben' }).waitFor();
    await page.getByLabel('Beginn').fill('11:00');
    await page.getByLabel('Ende').fill('11:30');
    await press(page, 'Termin verschieben');
    await page.getByText('Der Termin wurde verschoben.').waitFor();
    await page.getByRole('heading', { name: 'Termin am Samstag, 2. März 2030 um 11:00' }).waitFor();
    await page.getByLabel('Beginn').fill('09:30');
    await page.getByLabel('Ende').fill('10:00');
    await press(page, 'Termin verschieben');
    await page.getByText('Die Behandlerin oder der Behandler ist zu dieser Zeit belegt').waitFor();
    await axeCheck(page, t);
    await screenshot(page, 'german-appointments-reschedule-busy');

    await press(page, 'Termin absagen');
    await page.locator('#field-cancellationReason-error').waitFor();
    t.is(
      await page.locator('#field-cancellationReason-error').innerText(),
      'Geben Sie an, warum der Termin abgesagt wird.',
    );
    await page.locator('#field-cancellationReason').fill('Patientin zieht nach Hamburg');
    await press(page, 'Termin absagen');
    await page.getByText('Der Termin wurde abgesagt.').waitFor();
    await page.getByText('Patientin zieht nach Hamburg').waitFor();
    t.is(await page.getByRole('heading', { name: 'Verschieben' }).count(), 0);
    await axeCheck(page, t);
    await screenshot(page, 'german-appointments-cancelled');

    const [first] = (await backend.knex('appointments_appointment').orderBy('id').pluck('id')) as number[];
    await page.goto(`${backend.base}/appointments/${first}`);
    await press(page, 'Als nicht erschienen markieren');
    await page.getByText('Der Status ist jetzt Nicht erschienen.').waitFor();
    t.like(await backend.knex('appointments_appointment').where({ id: first }).first('status'), {
      status: 'noshow',
    });
    await axeCheck(page, t);
  },
);

test.serial(
  'the day and week grids speak German, and the address keeps them for reload and Back',
  async (t) => {
    await backend
      .knex('appointments_appointment')
      .insert([
        row('Müller', 'Dr. Grace Hopper', localTime(2030, 3, 6, 9), 30),
        row("O'Brien", 'Dr. Alan Turing', localTime(2030, 3, 6, 9, 15), 30),
        row("O'Brien", 'Dr. Grace Hopper', localTime(2030, 3, 6, 14), 60, 'arrived'),
        row('Müller', 'Dr. Alan Turing', localTime(2030, 3, 4, 11), 30),
      ]);
    const page = await germanPage(browser, t, backend, 'rita', '/appointments?date=2030-03-06');
    await page.getByRole('table', { name: 'Termine am Mittwoch, 6. März 2030' }).waitFor();
    t.deepEqual(await page.locator('.appointments-grid thead th').allInnerTexts(), [
      'Uhrzeit',
      'Dr. Alan Turing',
      'Dr. Grace Hopper',
    ]);
    await eventually(
      t,
      () => gridRows(page),
      [
        [
          '09:00',
          "09:15–09:45 O'Brien, Siobhán Kontrolle O'Brien",
          '09:00–09:30 Müller, Jürgen Kontrolle Müller',
        ],
        ['14:00', '', "14:00–15:00 O'Brien, Siobhán Kontrolle O'Brien Eingetroffen"],
      ],
      'two practitioners side by side, 24-hour times',
    );
    await axeCheck(page, t);
    await screenshot(page, 'german-appointments-day-grid');

    await page.getByLabel('Anzeigen').selectOption({ label: 'Woche' });
    await page.getByRole('table', { name: 'Termine in der Woche ab Montag, 4. März 2030' }).waitFor();
    t.is(new URL(page.url()).search, '?date=2030-03-06&view=week');
    await page.getByLabel('Behandler/in').selectOption({ label: 'Dr. Alan Turing' });
    const turingWeek = page.getByRole('table', {
      name: 'Termine bei Dr. Alan Turing in der Woche ab Montag, 4. März 2030',
    });
    await turingWeek.waitFor();
    t.deepEqual((await page.locator('.appointments-grid thead th').allInnerTexts()).slice(0, 3), [
      'Uhrzeit',
      'Mo., 4. März',
      'Di., 5. März',
    ]);
    await axeCheck(page, t);
    await screenshot(page, 'german-appointments-week-grid');

    await page.reload();
    await turingWeek.waitFor();
    await page.getByRole('link', { name: '11:00–11:30' }).click();
    await page.getByRole('heading', { name: /^Termin am Montag, 4\. März 2030 um 11:00/ }).waitFor();
    await page.goBack();
    await turingWeek.waitFor();
    await page.getByRole('button', { name: 'Nächste Woche' }).click();
    await page.getByText('Keine Termine bei Dr. Alan Turing in dieser Woche').waitFor();
    await page.getByText('Woche von Montag, 11. März 2030 bis Sonntag, 17. März 2030').first().waitFor();
    t.is(new URL(page.url()).search, `?date=2030-03-13&view=week&practitioner=${ids['Dr. Alan Turing']}`);
    // The address is replaced, not pushed, as the week changes: a reload keeps the week shown.
    await page.reload();
    await page.getByText('Woche von Montag, 11. März 2030 bis Sonntag, 17. März 2030').first().waitFor();
    t.is(await page.getByLabel('Behandler/in').inputValue(), String(ids['Dr. Alan Turing']));
  },
);

test.serial(
  'at 390 px the German day is a list without sideways scrolling, and prints as a list',
  async (t) => {
    const page = await germanPage(browser, t, backend, 'rita', '/appointments?date=2030-03-06');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('table', { name: 'Termine am Mittwoch, 6. März 2030' }).waitFor();
    await page.getByRole('link', { name: '09:15–09:45' }).waitFor();
    const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    t.true(width <= 390, `the page is ${width} px wide`);
    await axeCheck(page, t);
    await screenshot(page, 'german-appointments-day-390');

    await page.emulateMedia({ media: 'print' });
    t.false(await page.locator('.sidebar').isVisible());
    t.deepEqual(
      (await page.locator('.appointments-print li').allInnerTexts()).map((text) =>
        text.replace(/\s+/g, ' ').trim(),
      ),
      [
        'Mi., 6. März 09:00–09:30 Müller, Jürgen (MRN MRN-0042) · Dr. Grace Hopper · Kontrolle Müller · Gebucht',
        "Mi., 6. März 09:15–09:45 O'Brien, Siobhán (MRN MRN-0043) · Dr. Alan Turing · Kontrolle O'Brien · Gebucht",
        "Mi., 6. März 14:00–15:00 O'Brien, Siobhán (MRN MRN-0043) · Dr. Grace Hopper · Kontrolle O'Brien · Eingetroffen",
      ],
    );
    await screenshot(page, 'german-appointments-day-print');
  },
);

test.serial(
  "the German start page shows the practitioner's appointments today, others the clinic's",
  async (t) => {
    const today = new Date();
    const todayAt = (hour: number) => new Date(today.getFullYear(), today.getMonth(), today.getDate(), hour);
    await backend
      .knex('appointments_appointment')
      .insert([
        row('Müller', 'Dr. Grace Hopper', todayAt(8), 30),
        row("O'Brien", 'Dr. Alan Turing', todayAt(8), 30),
      ]);
    const page = await germanPage(browser, t, backend, 'hopper');
    const mine = page.getByRole('region', { name: 'Ihre Termine heute (Dr. Grace Hopper)' });
    await mine.getByRole('cell', { name: 'Müller, Jürgen' }).waitFor();
    t.is(await mine.getByRole('cell', { name: "O'Brien, Siobhán" }).count(), 0);
    await axeCheck(page, t);
    await screenshot(page, 'german-appointments-home-practitioner');

    const other = await germanPage(browser, t, backend, 'rita');
    const clinic = other.getByRole('region', { name: 'Heutige Termine' });
    await clinic.getByRole('cell', { name: "O'Brien, Siobhán" }).waitFor();
    await clinic.getByRole('cell', { name: 'Müller, Jürgen' }).waitFor();
    await axeCheck(other, t);
    await screenshot(other, 'german-appointments-home-clinic');
  },
);

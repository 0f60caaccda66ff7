/**
 * Practitioner administration in the appointments layer: an administrator lists the practitioners,
 * adds one linked to a staff user (a same-name refused in words, nothing added), edits one in a form
 * kept in the address over a reload and Back, deletes one without appointments and, for one with
 * appointments, is offered to deactivate instead; an inactive practitioner is not offered for new
 * bookings, and a receptionist has no Practitioners page. Axe on the list and the edit form.
 * Serial: each test starts from what the one before left.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import {
  axeCheck,
  eventually,
  focused,
  launchBrowser,
  screenshot,
  sidebar,
  sidebarLabels,
  signIn,
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
      { username: 'ada', roles: ['admin'] },
      { username: 'rita', roles: ['receptionist'] },
      { username: 'hopper', roles: ['clinician'] },
    ],
  });
  const { knex } = backend;
  const [patient] = (await knex('patients_patient')
    .insert({ mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' })
    .returning('id')) as Array<{ id: number }>;
  for (const row of (await knex('appointments_practitioner')
    .insert([
      { name: 'Dr Turing', folded_name: 'dr turing', specialty: 'General practice' },
      { name: 'Dr Ng', folded_name: 'dr ng' },
    ])
    .returning(['id', 'name'])) as Array<{ id: number; name: string }>)
    ids[row.name] = row.id;
  await knex('appointments_appointment').insert({
    patient_id: patient!.id,
    practitioner_id: ids['Dr Turing'],
    practitioner_name: 'Dr Turing',
    start_at: new Date('2026-03-02T09:00:00Z'),
    end_at: new Date('2026-03-02T09:30:00Z'),
    status: 'booked',
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

const practitioners = () =>
  backend
    .knex('appointments_practitioner')
    .orderBy('id')
    .select('name', 'specialty', 'active', 'user_id') as Promise<object[]>;

/** The practitioners table's rows, as their cells' text. */
async function tableRows(page: Page): Promise<string[][]> {
  const rows = await page.getByRole('table', { name: 'Practitioners' }).locator('tbody tr').all();
  return Promise.all(
    rows.map(async (row) => (await row.locator('td').allInnerTexts()).map((cell) => cell.trim())),
  );
}

test.serial(
  'an administrator adds a practitioner linked to a staff user; a same-name is refused in words',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'ada');
    await sidebar(page).filter({ hasText: 'Practitioners' }).click();
    await page.getByRole('heading', { name: 'Practitioners', level: 1 }).waitFor();
    await eventually(
      t,
      () => tableRows(page),
      [
        ['Dr Ng', '—', '—', 'Active', 'Edit'],
        ['Dr Turing', 'General practice', '—', 'Active', 'Edit'],
      ],
      'the practitioners by name',
    );
    await axeCheck(page, t);
    // Under /appointments too, but only the nearer entry is the current page.
    t.deepEqual(await page.locator('nav[aria-label="Modules"] a[aria-current="page"]').allTextContents(), [
      'Practitioners',
    ]);

    await page.getByLabel('Name').fill('Dr. Grace Hopper');
    await page.getByLabel('Specialty').fill('Cardiology');
    await page.getByLabel('Signs in as').selectOption({ label: 'hopper' });
    await page.getByRole('button', { name: 'Add practitioner' }).click();
    await page.getByRole('status').filter({ hasText: 'Dr. Grace Hopper was added.' }).waitFor();
    // By name as folded: "dr grace hopper" before "dr ng".
    await eventually(
      t,
      () => tableRows(page),
      [
        ['Dr. Grace Hopper', 'Cardiology', 'hopper', 'Active', 'Edit'],
        ['Dr Ng', '—', '—', 'Active', 'Edit'],
        ['Dr Turing', 'General practice', '—', 'Active', 'Edit'],
      ],
      'the new practitioner among them',
    );
    // hopper signs in as a practitioner now: not offered to link to another.
    t.deepEqual(await page.getByLabel('Signs in as').locator('option').allTextContents(), [
      'Nobody',
      'ada',
      'admin',
      'rita',
    ]);
    await screenshot(page, 'practitioners-list');

    const before = await practitioners();
    await page.getByLabel('Name').fill('dr grace HOPPER');
    await page.getByRole('button', { name: 'Add practitioner' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'The practitioner was not added' });
    await refusal.waitFor();
    t.regex(await refusal.innerText(), /A practitioner of this name is already in Ward/);
    t.deepEqual(await practitioners(), before);

    await page.getByLabel('Name').fill('');
    await page.getByRole('button', { name: 'Add practitioner' }).click();
    await page.locator('#add-name-error').waitFor();
    await focused(t, page.getByLabel('Name'), 'the empty name has the focus');
    t.deepEqual(await practitioners(), before);
  },
);

test.serial(
  'editing is in the address: a reload keeps the form, Back leaves it; saving says so',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'ada');
    await sidebar(page).filter({ hasText: 'Practitioners' }).click();
    await page.getByRole('link', { name: 'Edit Dr Turing' }).click();
    await page.getByRole('heading', { name: 'Edit Dr Turing', level: 1 }).waitFor();
    t.is(new URL(page.url()).search, `?edit=${ids['Dr Turing']}`);
    await page.reload();
    await page.getByRole('heading', { name: 'Edit Dr Turing', level: 1 }).waitFor();
    t.is(await page.getByLabel('Specialty').inputValue(), 'General practice');
    await axeCheck(page, t);
    await page.goBack();
    await page.getByRole('heading', { name: 'Practitioners', level: 1 }).waitFor();

    await page.getByRole('link', { name: 'Edit Dr Turing' }).click();
    // Until the form replaces the list, the Name field on the page is the add form's.
    await page.getByRole('heading', { name: 'Edit Dr Turing', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('Dr Alan Turing');
    await page.getByLabel('Specialty').fill('Neurology');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Dr Alan Turing was saved.' }).waitFor();
    t.like((await practitioners())[0], { name: 'Dr Alan Turing', specialty: 'Neurology', active: true });
  },
);

test.serial(
  'a practitioner with appointments is deactivated instead of deleted; one without is deleted',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(`${backend.base}/appointments/practitioners?edit=${ids['Dr Turing']}`);
    await signIn(page, 'ada');
    await page.getByRole('heading', { name: 'Edit Dr Alan Turing', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete practitioner' }).click();
    const warning = page
      .getByRole('alert')
      .filter({ hasText: 'Dr Alan Turing has appointments and cannot be deleted' });
    await warning.waitFor();
    await screenshot(page, 'practitioners-in-use');
    await axeCheck(page, t);
    t.is((await practitioners()).length, 3);
    await warning.getByRole('button', { name: 'Deactivate instead' }).click();
    await page.getByRole('status').filter({ hasText: 'Dr Alan Turing was deactivated' }).waitFor();
    await eventually(
      t,
      async () => (await tableRows(page)).find((row) => row[0] === 'Dr Alan Turing')?.[3],
      'Inactive',
      'Dr Alan Turing inactive in the list',
    );

    await page.getByRole('link', { name: 'Edit Dr Ng' }).click();
    await page.getByRole('button', { name: 'Delete practitioner' }).click();
    await page.getByRole('status').filter({ hasText: 'The practitioner was deleted.' }).waitFor();
    t.deepEqual(
      (await practitioners()).map((row) => (row as { name: string }).name),
      ['Dr Alan Turing', 'Dr. Grace Hopper'],
    );
  },
);

test.serial('a receptionist books only active practitioners and has no Practitioners page', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'rita');
  t.false((await sidebarLabels(page)).includes('Practitioners'));
  await page.goto(`${backend.base}/appointments/new`);
  await page.getByRole('heading', { name: 'New appointment', level: 1 }).waitFor();
  await eventually(
    t,
    () => page.locator('#field-practitionerId option').allTextContents(),
    ['Choose a practitioner', 'Dr. Grace Hopper'],
    'only the active practitioner offered',
  );
  await page.goto(`${backend.base}/appointments/practitioners`);
  await page.getByText('You cannot manage practitioners').waitFor();
  t.pass();
});

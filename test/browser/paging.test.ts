/**
 * The patients list pages through 60 patients (25 a page) by keyboard with the Pager: each page
 * shows other rows, going back shows the earlier ones again, and the Previous and Next buttons are
 * disabled at the first and last page.
 */
import test from 'ava';
import type { Locator, Page } from 'playwright-core';
import {
  axeCheck,
  eventually,
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

const COUNT = 60;
const PAGE_SIZE = 25;

/** Zero-padded, so the list's order (family name, given name, id) is the numbers' order. */
const number = (index: number) => String(index + 1).padStart(2, '0');

/** "Family-01, Given-01" … as the list shows them, in the list's order. */
const NAMES = Array.from({ length: COUNT }, (_, index) => `Family-${number(index)}, Given-${number(index)}`);

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients'],
    users: [{ username: 'rita', roles: ['receptionist'] }],
  });
  // Straight into the module's table (columns of its migrations): 60 patients through the form
  // would test the form, which patients.test.ts does.
  await backend.knex('patients_patient').insert(
    Array.from({ length: COUNT }, (_, index) => ({
      mrn: `MRN-${number(index)}`,
      family_name: `Family-${number(index)}`,
      given_name: `Given-${number(index)}`,
    })),
  );
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

const rows = (page: Page) =>
  page.getByRole('table', { name: 'All patients, by name' }).getByRole('link').allInnerTexts();
const previous = (page: Page) =>
  page.getByRole('navigation', { name: 'Patient list pages' }).getByRole('button', { name: 'Previous page' });
const next = (page: Page) =>
  page.getByRole('navigation', { name: 'Patient list pages' }).getByRole('button', { name: 'Next page' });
const status = (page: Page) =>
  page.getByRole('navigation', { name: 'Patient list pages' }).locator('.pagination-status').innerText();

/** Tab to a Pager button and press Enter, as a keyboard user pages. */
async function press(page: Page, button: Locator): Promise<void> {
  await tabTo(page, button);
  await page.keyboard.press('Enter');
}

test('a receptionist pages through the patient list by keyboard, forward to the end and back', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'rita');
  await tabTo(page, sidebar(page).filter({ hasText: 'Patients' }));
  await page.keyboard.press('Enter');

  await eventually(t, () => rows(page), NAMES.slice(0, PAGE_SIZE), 'page 1 lists the first 25 by name');
  t.is(await status(page), 'Page 1');
  t.true(await previous(page).isDisabled(), 'no page before the first');
  t.true(await next(page).isEnabled());
  await axeCheck(page, t);
  await screenshot(page, 'paging-first');

  await press(page, next(page));
  await eventually(t, () => rows(page), NAMES.slice(PAGE_SIZE, 2 * PAGE_SIZE), 'page 2 lists the next 25');
  t.is(await status(page), 'Page 2');
  t.true(await previous(page).isEnabled());
  t.true(await next(page).isEnabled());

  await press(page, next(page));
  await eventually(t, () => rows(page), NAMES.slice(2 * PAGE_SIZE), 'page 3 lists the last 10');
  t.is(await status(page), 'Page 3');
  t.true(await next(page).isDisabled(), 'no page after the last');
  t.true(await previous(page).isEnabled());
  await axeCheck(page, t);
  await screenshot(page, 'paging-last');

  await press(page, previous(page));
  await eventually(t, () => rows(page), NAMES.slice(PAGE_SIZE, 2 * PAGE_SIZE), 'back on page 2');
  t.is(await status(page), 'Page 2');

  await press(page, previous(page));
  await eventually(t, () => rows(page), NAMES.slice(0, PAGE_SIZE), 'back on page 1');
  t.is(await status(page), 'Page 1');
  t.true(await previous(page).isDisabled());
  t.true(await next(page).isEnabled());
  await axeCheck(page, t);
});

/**
 * The import wizard's practitioner notice, with the real Synthea CSV export: the encounters'
 * preview lists the practitioners execute would create (named after Synthea's PROVIDER ids), the
 * operator books one of those names with a practitioner Ward has, the preview says so, and
 * execute books that name's appointments with them. Axe on the notice.
 */
import path from 'node:path';
import test from 'ava';
import { FIXTURES } from '../helpers/cli.ts';
import {
  axeCheck,
  importState,
  launchBrowser,
  screenshot,
  signIn,
  startBackend,
  uploadAndValidate,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

const EXPORT = path.join(FIXTURES, 'synthea-export');

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['migration_import'],
    users: [{ username: 'ada', roles: ['admin'] }],
  });
  await backend.knex('appointments_practitioner').insert({ name: 'Dr. Mei Cho', folded_name: 'dr mei cho' });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

test('the preview lists the practitioners to create; one mapped to Dr. Mei Cho books with her', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'ada');
  await page.getByRole('navigation', { name: 'Modules' }).waitFor();
  await uploadAndValidate(page, backend.base, path.join(EXPORT, 'patients.csv'));
  await page.getByRole('button', { name: 'Execute' }).click();
  await importState(page, 'Succeeded').waitFor();

  await uploadAndValidate(page, backend.base, path.join(EXPORT, 'encounters.csv'));
  await page.getByRole('button', { name: 'Preview' }).click();
  const notice = page.getByRole('status').filter({ hasText: 'Execute would create 28 practitioners' });
  await notice.waitFor();
  const busiest = '525a0801-63c7-328c-a95d-bc0f8bee79cc';
  const item = notice.locator('li').filter({ hasText: busiest });
  t.regex(await item.innerText(), /43 appointments/);
  await axeCheck(page, t);
  await screenshot(page, 'import-practitioners-notice');

  await item.getByLabel(`Book ${busiest} with`).selectOption({ label: 'Dr. Mei Cho' });
  await item.getByRole('button', { name: 'Map' }).click();
  const matched = page.getByRole('status').filter({ hasText: 'Execute would create 27 practitioners' });
  await matched.waitFor();
  t.regex(await matched.innerText(), new RegExp(`"${busiest}" → Dr\\. Mei Cho: 43 appointments`));
  await axeCheck(page, t);

  await page.getByRole('button', { name: 'Execute' }).click();
  await importState(page, 'Succeeded').waitFor();
  const cho = (await backend
    .knex('appointments_practitioner')
    .where({ name: 'Dr. Mei Cho' })
    .first('id')) as {
    id: number;
  };
  t.is(
    Number(
      (await backend.knex('appointments_appointment').where({ practitioner_id: cho.id }).count('* as n'))[0]!
        .n,
    ),
    43,
  );
  t.is(Number((await backend.knex('appointments_practitioner').count('* as n'))[0]!.n), 28);
});

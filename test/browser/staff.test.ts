/**
 * Staff administration in the shell, for an administrator: the staff list, adding a person with a
 * temporary password (who must then choose their own), disabling someone; a user without
 * base.user.manage sees no Staff entry and is refused the page.
 */
import test from 'ava';
import {
  axeCheck,
  launchBrowser,
  screenshot,
  sidebar,
  signIn,
  signOut,
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
    modules: ['patients'],
    users: [
      { username: 'alice', roles: ['admin'] },
      { username: 'erin', roles: ['receptionist'] },
    ],
  });
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

const TEMPORARY = 'a temporary passphrase';

test('an administrator lists staff, adds a person with a temporary password and disables another', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'alice');
  await tabTo(page, sidebar(page).filter({ hasText: 'Staff' }));
  await page.keyboard.press('Enter');
  const table = page.getByRole('table', { name: 'Staff' });
  await table.getByRole('link', { name: 'erin' }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'staff-list');

  await tabTo(page, page.getByLabel('Username'));
  await page.keyboard.type('bob');
  await page.getByLabel('Role').selectOption('receptionist');
  await tabTo(page, page.getByLabel('Temporary password'));
  await page.keyboard.type('passwordpassword');
  await page.keyboard.press('Enter');
  await page.getByRole('alert').filter({ hasText: 'The user was not created' }).waitFor();
  t.regex(await page.getByRole('alert').first().innerText(), /too easy to guess/);
  await page.getByLabel('Temporary password').fill(TEMPORARY);
  await page.getByRole('button', { name: 'Add person' }).click();
  await page.getByText('Created bob.').waitFor();
  await table.getByRole('link', { name: 'bob' }).waitFor();
  t.regex(await table.getByRole('row').filter({ hasText: 'bob' }).innerText(), /Must choose a password/);
  await axeCheck(page, t);
  await screenshot(page, 'staff-created');

  await tabTo(page, table.getByRole('link', { name: 'erin' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'erin', level: 1 }).waitFor();
  await tabTo(page, page.getByRole('button', { name: 'Disable' }));
  await page.keyboard.press('Enter');
  await page.getByText('Disabled erin.').waitFor();
  await page.getByRole('button', { name: 'Enable' }).waitFor();
  t.is(
    await backend
      .knex('base_user')
      .where({ username: 'erin' })
      .first('password_hash')
      .then((row) => row.password_hash[0]),
    '!',
  );
  await axeCheck(page, t);
  await screenshot(page, 'staff-user');

  await signOut(page);
  await signIn(page, 'bob', TEMPORARY);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  t.pass('the person must choose their own password first');
});

test('without base.user.manage there is no Staff entry and the page is refused', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await backend.cli(
    ['users', 'create', 'rita', '--role', 'receptionist', '--password-stdin'],
    'correct horse battery\n',
  );
  await signIn(page, 'rita');
  await sidebar(page).first().waitFor();
  t.is(await sidebar(page).filter({ hasText: 'Staff' }).count(), 0);
  await page.goto(`${backend.base}/users`);
  await page
    .getByRole('alert')
    .filter({ hasText: /permission/i })
    .waitFor();
  await axeCheck(page, t);
});

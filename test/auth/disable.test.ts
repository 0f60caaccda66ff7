/**
 * `users disable` racing a sign-in: whichever order the two commit in, a disabled user ends up
 * with no session and the lock on the password stays.
 */
import test from 'ava';
import { hashPassword, CURRENT_PARAMS } from '../../src/auth/password.ts';
import { checkPassword, createSession } from '../../src/auth/sessions.ts';
import { disableUser, findUser, isDisabled } from '../../src/auth/users.ts';
import { PASSWORD, addUser, installedDatabase } from '../helpers/app.ts';

test('a sign-in whose password was checked before the disable committed gets no session', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'bob', ['admin']);
  const checked = await checkPassword(knex, 'bob', PASSWORD);
  if (checked === null) return t.fail('the password did not check');
  await disableUser(knex, checked);
  await t.throwsAsync(createSession(knex, checked.id), { message: 'user bob is disabled' });
  t.deepEqual(await knex('base_session').select(), []);
});

test('rehashing an old-cost password on sign-in never unlocks a user disabled meanwhile', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'bob', ['admin']);
  const weaker = await hashPassword(PASSWORD, { ...CURRENT_PARAMS, ln: CURRENT_PARAMS.ln - 1 });
  await knex('base_user').where({ id }).update({ password_hash: weaker });
  const user = await findUser(knex, 'bob');
  if (user === undefined) return t.fail('no user');
  // The disable lands while the sign-in below is still verifying against the old hash it read.
  const signingIn = checkPassword(knex, 'bob', PASSWORD);
  await disableUser(knex, user);
  await signingIn;
  const stored = (await knex('base_user').where({ id }).first()).password_hash as string;
  t.true(isDisabled(stored));
});

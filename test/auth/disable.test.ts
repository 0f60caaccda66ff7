/**
 * `users disable` racing what gives a user a way in (a sign-in, a new password, a new token):
 * whichever commits first, a disabled user ends up with no way in and the lock stays.
 */
import test from 'ava';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { loadCredential } from '../../src/auth/credential-store.ts';
import { hashPassword, CURRENT_PARAMS } from '../../src/auth/password.ts';
import { checkPassword, createSession } from '../../src/auth/sessions.ts';
import { hashSecret, newSecret } from '../../src/auth/tokens.ts';
import { disableUser, enableUser, findUser, isDisabled, setPasswordHash } from '../../src/auth/users.ts';
import { PASSWORD, addUser, installedDatabase } from '../helpers/app.ts';

const storedHash = async (knex: Parameters<typeof findUser>[0]) =>
  (await findUser(knex, 'bob'))?.password_hash ?? null;

test('a sign-in whose password was checked before the disable committed gets no session', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'bob', ['admin']);
  const checked = await checkPassword(knex, 'bob', PASSWORD);
  if (checked === null) return t.fail('the password did not check');
  await disableUser(knex, checked);
  t.is(await createSession(knex, checked.id), null);
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
  t.not(await signingIn, null, 'the sign-in read the hash before the disable: the race ran');
  t.true(isDisabled(await storedHash(knex)));
});

test('a new password or token for a user disabled after the command looked is refused, the lock kept', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'bob', ['admin']);
  const seen = await findUser(knex, 'bob');
  if (seen === undefined) return t.fail('no user');
  await disableUser(knex, seen);
  const locked = await storedHash(knex);
  await t.throwsAsync(setPasswordHash(knex, id, await hashPassword('a new long passphrase')), {
    message: 'user bob is disabled',
  });
  await t.throwsAsync(createApiToken(knex, { userId: id, role: null, name: null, expiresAt: null }), {
    message: 'user bob is disabled',
  });
  t.is(await storedHash(knex), locked);
  t.deepEqual(await knex('base_api_token').select(), []);
});

test('disabling locks the hash as it is now, so enabling restores a password set meanwhile', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'bob', ['admin']);
  const seen = await findUser(knex, 'bob');
  if (seen === undefined) return t.fail('no user');
  await setPasswordHash(knex, id, await hashPassword('the replacement passphrase'));
  t.not(await disableUser(knex, seen), null);
  t.is(await disableUser(knex, seen), null, 'already disabled');
  t.true(await enableUser(knex, seen));
  t.false(await enableUser(knex, seen), 'already enabled');
  t.not(await checkPassword(knex, 'bob', 'the replacement passphrase'), null);
  t.is(await checkPassword(knex, 'bob', PASSWORD), null);
});

test('a credential of a disabled user is refused however it was made', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'bob', ['admin']);
  const seen = await findUser(knex, 'bob');
  if (seen === undefined) return t.fail('no user');
  await disableUser(knex, seen);
  const secret = newSecret('token');
  // Written past every check, as plain SQL could.
  await knex('base_api_token').insert({ token_hash: hashSecret(secret), user_id: id });
  t.is(await loadCredential(knex, 'token', hashSecret(secret)), null);
});

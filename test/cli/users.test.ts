/**
 * `ward users …` through the real bin/ward, against a database with the base module installed.
 * Every refusal: a message naming the problem, a hint with the fix, the exit code, and no change.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { verifyPassword } from '../../src/auth/password.ts';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { checkPassword, createSession } from '../../src/auth/sessions.ts';
import { AUTH_MODULES, PASSWORD, addUser, installedDatabase } from '../helpers/app.ts';
import { parseJson, scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';

async function setup(t: ExecutionContext) {
  const { url, knex } = await installedDatabase(t);
  const storage = await scratchDir('ward-users-');
  await writeFile(
    path.join(storage, 'grants.json'),
    JSON.stringify({
      roles: { migration_operator: ['intake.job.read'], sync_agent: ['intake.binary.write'] },
    }),
  );
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, WARD_MODULE_PATHS: AUTH_MODULES };
  return { knex, env };
}

const everything = async (knex: Knex) => ({
  users: await knex('base_user').orderBy('id').select(),
  roles: await knex('base_user_role').orderBy(['user_id', 'role_id']).select(),
  sessions: await knex('base_session').select(),
  tokens: await knex('base_api_token').orderBy('id').select(),
});

async function refused(
  t: ExecutionContext,
  knex: Knex,
  run: Promise<{ code: number | null; stdout: string; stderr: string }>,
  expected: { code: number; message: RegExp; hint?: RegExp },
) {
  const before = await everything(knex);
  const result = await run;
  t.is(result.code, expected.code, result.stdout + result.stderr);
  t.regex(result.stderr, expected.message);
  if (expected.hint !== undefined) t.regex(result.stderr, expected.hint);
  t.notRegex(result.stderr, /^\s+at /m, 'no stack trace');
  t.deepEqual(await everything(knex), before, 'nothing changed');
}

test('users create with a role and a password from stdin', async (t) => {
  const { knex, env } = await setup(t);
  const run = await ward(['users', 'create', 'alice', '--role', 'admin', '--password-stdin'], env, {
    input: `${PASSWORD}\n`,
  });
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout, 'Created user alice with role admin.\n');
  t.false((run.stdout + run.stderr).includes(PASSWORD));
  const user = await knex('base_user').where({ username: 'alice' }).first();
  t.regex(user.password_hash, /^\$scrypt\$/);
  t.true(
    await verifyPassword(PASSWORD, user.password_hash),
    'the trailing newline is not part of the password',
  );
  const list = parseJson<Array<{ username: string; roles: string[]; hasPassword: boolean }>>(
    await ward(['users', 'list', '--json'], env),
  );
  t.like(list, [{ username: 'alice', roles: ['admin'], hasPassword: true }]);
});

test('users create without a password makes a token-only service account', async (t) => {
  const { knex, env } = await setup(t);
  const run = await ward(['users', 'create', 'sync', '--role', 'sync_agent', '--json'], env);
  t.is(run.code, 0, run.stderr);
  t.like(parseJson(run), { username: 'sync', roles: ['sync_agent'], hasPassword: false });
  t.is((await knex('base_user').where({ username: 'sync' }).first()).password_hash, null);
  const table = await ward(['users', 'list'], env);
  t.regex(
    table.stdout,
    /^USERNAME +ROLES +SIGN-IN +CREATED\nsync +sync_agent +tokens only +\d{4}-\d\d-\d\d\n$/,
  );
});

test('users create refuses bad input and changes nothing', async (t) => {
  const { knex, env } = await setup(t);
  await addUser(knex, 'alice', ['admin']);
  await refused(t, knex, ward(['users', 'create', 'alice'], env), {
    code: 1,
    message: /error: user alice already exists/,
    hint: /ward users grant/,
  });
  await refused(t, knex, ward(['users', 'create', 'Alice'], env), {
    code: 2,
    message: /"Alice" is not a valid username/,
    hint: /lowercase/,
  });
  await refused(t, knex, ward(['users', 'create', 'bob', '--role', 'adminn'], env), {
    code: 1,
    message: /no installed module and no grants file defines the role adminn/,
    hint: /known roles: admin, migration_operator, sync_agent; define new roles in .*grants\.json/,
  });
  await refused(t, knex, ward(['users', 'create', 'bob', '--role', 'Bad Role'], env), {
    code: 2,
    message: /"Bad Role" is not a valid role name/,
  });
  await refused(t, knex, ward(['users', 'create', 'bob', '--password-stdin'], env, { input: 'short\n' }), {
    code: 1,
    message: /the password is too short: use at least 12 characters/,
  });
  await refused(
    t,
    knex,
    ward(['users', 'create', 'bob', '--password-stdin'], env, { input: 'qwertyuiop123\n' }),
    { code: 1, message: /a common password with small changes/, hint: /unrelated words/ },
  );
  await refused(
    t,
    knex,
    ward(['users', 'create', 'bob', '--password-stdin'], env, { input: `${' '.repeat(12)}\n` }),
    { code: 1, message: /the password is only spaces/, hint: /letters, digits or punctuation/ },
  );
  await refused(
    t,
    knex,
    ward(['users', 'create', 'bob', '--password-stdin'], env, { input: '\0'.repeat(12) }),
    { code: 1, message: /the password holds a control character/, hint: /characters you can type/ },
  );
  await refused(t, knex, ward(['users', 'create', 'bob', '--password-stdin'], env), {
    code: 2,
    message: /stdin held no password/,
    hint: /printf/,
  });
});

test('users grant and revoke: idempotent, and they say so', async (t) => {
  const { knex, env } = await setup(t);
  await addUser(knex, 'carol', []);
  const grant = await ward(['users', 'grant', 'carol', 'migration_operator'], env);
  t.is(grant.code, 0, grant.stderr);
  t.is(grant.stdout, 'carol now has the role migration_operator.\n');
  const again = await ward(['users', 'grant', 'carol', 'migration_operator'], env);
  t.is(again.stdout, 'carol already has the role migration_operator; nothing changed.\n');
  const revoke = await ward(['users', 'revoke', 'carol', 'migration_operator', '--json'], env);
  t.deepEqual(parseJson(revoke), { username: 'carol', role: 'migration_operator', changed: true });
  const twice = await ward(['users', 'revoke', 'carol', 'migration_operator'], env);
  t.is(twice.code, 0);
  t.is(twice.stdout, 'carol does not have the role migration_operator; nothing changed.\n');
  await refused(t, knex, ward(['users', 'grant', 'nobody', 'admin'], env), {
    code: 1,
    message: /there is no user nobody/,
    hint: /ward users list/,
  });
  await refused(t, knex, ward(['users', 'grant', 'carol', 'ghost'], env), {
    code: 1,
    message: /no installed module and no grants file defines the role ghost/,
  });
});

test('users set-password replaces the hash, ends the sessions and revokes the tokens; it reads stdin only', async (t) => {
  const { knex, env } = await setup(t);
  const id = await addUser(knex, 'alice', ['admin']);
  await createSession(knex, id);
  await refused(t, knex, ward(['users', 'set-password', 'alice'], env), {
    code: 2,
    message: /reads the new password from stdin only/,
    hint: /--password-stdin/,
  });
  await refused(
    t,
    knex,
    ward(['users', 'set-password', 'nobody', '--password-stdin'], env, { input: 'a new long passphrase' }),
    {
      code: 1,
      message: /there is no user nobody/,
    },
  );
  const token = await createApiToken(knex, { userId: id, role: null, name: 'script', expiresAt: null });
  const run = await ward(['users', 'set-password', 'alice', '--password-stdin'], env, {
    input: 'a new long passphrase\r\n',
  });
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout, 'Password of alice changed; 1 session ended, 1 API token revoked.\n');
  const hash = (await knex('base_user').where({ id }).first()).password_hash;
  t.true(await verifyPassword('a new long passphrase', hash));
  t.false(await verifyPassword(PASSWORD, hash));
  t.is((await knex('base_session').select()).length, 0);
  t.not((await knex('base_api_token').where({ id: token.id }).first()).revoked_at, null);
});

test('users set-password --keep-tokens leaves the API tokens valid', async (t) => {
  const { knex, env } = await setup(t);
  const id = await addUser(knex, 'alice', ['admin']);
  const token = await createApiToken(knex, { userId: id, role: null, name: 'script', expiresAt: null });
  const run = await ward(
    ['users', 'set-password', 'alice', '--password-stdin', '--keep-tokens', '--json'],
    env,
    {
      input: 'a new long passphrase',
    },
  );
  t.is(run.code, 0, run.stderr);
  t.deepEqual(parseJson(run), { username: 'alice', sessionsEnded: 0, tokensRevoked: 0 });
  t.is((await knex('base_api_token').where({ id: token.id }).first()).revoked_at, null);
});

test('users disable ends sessions, revokes tokens and locks the password; enable restores the password only', async (t) => {
  const { knex, env } = await setup(t);
  const id = await addUser(knex, 'bob', ['admin']);
  await createSession(knex, id);
  await createSession(knex, id);
  await createApiToken(knex, { userId: id, role: null, name: 'ci', expiresAt: null });
  const before = (await knex('base_user').where({ id }).first()).password_hash as string;

  const run = await ward(['users', 'disable', 'bob'], env);
  t.is(run.code, 0, run.stderr);
  t.is(
    run.stdout,
    'bob is disabled: 2 sessions ended, 1 API token revoked. Undo with `ward users enable bob`.\n',
  );
  t.is((await knex('base_session').where({ user_id: id })).length, 0);
  t.deepEqual(await knex('base_api_token').where({ user_id: id }).whereNull('revoked_at'), []);
  t.is(await checkPassword(knex, 'bob', PASSWORD), null, 'the right password no longer signs in');
  const listed = parseJson<Array<{ username: string; disabled: boolean; hasPassword: boolean }>>(
    await ward(['users', 'list', '--json'], env),
  );
  t.like(
    listed.find((user) => user.username === 'bob'),
    { disabled: true, hasPassword: true },
  );
  t.regex((await ward(['users', 'list'], env)).stdout, /^bob +admin +disabled /m);

  const again = await ward(['users', 'disable', 'bob', '--json'], env);
  t.is(again.code, 0, again.stderr);
  t.deepEqual(parseJson(again), {
    username: 'bob',
    changed: false,
    sessionsEnded: 0,
    tokensRevoked: 0,
  });

  const enabled = await ward(['users', 'enable', 'bob'], env);
  t.is(enabled.code, 0, enabled.stderr);
  t.regex(enabled.stdout, /^bob is enabled and can sign in with the password they had/);
  t.is((await knex('base_user').where({ id }).first()).password_hash, before);
  t.not(await checkPassword(knex, 'bob', PASSWORD), null);
  t.deepEqual(
    await knex('base_api_token').where({ user_id: id }).whereNull('revoked_at'),
    [],
    'tokens stay revoked',
  );
  const enabledAgain = await ward(['users', 'enable', 'bob'], env);
  t.is(enabledAgain.stdout, 'bob is not disabled; nothing changed.\n');
});

test('a service account without a password is disabled and enabled back to tokens only', async (t) => {
  const { knex, env } = await setup(t);
  const id = await addUser(knex, 'sync', ['sync_agent'], null);
  t.is((await ward(['users', 'disable', 'sync'], env)).code, 0);
  t.regex((await ward(['users', 'list'], env)).stdout, /^sync +sync_agent +disabled /m);
  t.is((await ward(['users', 'enable', 'sync'], env)).code, 0);
  t.is((await knex('base_user').where({ id }).first()).password_hash, null);
  t.regex((await ward(['users', 'list'], env)).stdout, /^sync +sync_agent +tokens only /m);
});

test('a disabled user gets no new password or token until enabled; unknown users are refused', async (t) => {
  const { knex, env } = await setup(t);
  await addUser(knex, 'bob', ['admin']);
  t.is((await ward(['users', 'disable', 'bob'], env)).code, 0);
  await refused(
    t,
    knex,
    ward(['users', 'set-password', 'bob', '--password-stdin'], env, { input: 'a new long passphrase' }),
    { code: 1, message: /user bob is disabled/, hint: /ward users enable bob/ },
  );
  await refused(t, knex, ward(['tokens', 'create', '--user', 'bob'], env), {
    code: 1,
    message: /user bob is disabled/,
    hint: /ward users enable bob/,
  });
  for (const command of ['disable', 'enable'])
    await refused(t, knex, ward(['users', command, 'nobody'], env), {
      code: 1,
      message: /there is no user nobody/,
      hint: /ward users list/,
    });
  await refused(t, knex, ward(['users', 'disable', 'Bob;'], env), { code: 2, message: /username/ });
});

test('without the base module, users commands say how to install it', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const run = await ward(['users', 'list'], { DATABASE_URL: url });
  t.is(run.code, 1);
  t.is(
    run.stderr,
    'error: the base module, which holds users and tokens, is not installed\nhint: run `ward modules install base`, then restart the backend\n',
  );
  t.false(await knex.schema.hasTable('base_user'));
});

test('users create --temporary: the person must choose their own password at first sign-in', async (t) => {
  const { knex, env } = await setup(t);
  const run = await ward(
    ['users', 'create', 'dan', '--role', 'admin', '--password-stdin', '--temporary'],
    env,
    {
      input: `${PASSWORD}\n`,
    },
  );
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /dan must choose their own password at first sign-in/);
  const row = (await knex('base_user')
    .where({ username: 'dan' })
    .first('password_hash', 'password_changed_at')) as {
    password_hash: string;
    password_changed_at: Date | null;
  };
  t.is(row.password_changed_at, null);
  t.true(await verifyPassword(PASSWORD, row.password_hash));
  await refused(t, knex, ward(['users', 'create', 'eve', '--temporary'], env), {
    code: 2,
    message: /--password-stdin/,
  });
});

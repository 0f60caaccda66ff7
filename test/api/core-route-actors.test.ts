/**
 * Ward's own routes write on someone's behalf as modules do: sign-in (and its second step),
 * sign-out, the password change, two-factor setup and the staff administration run their writes
 * in a transaction whose `ward.actor` names the user and their session or token. A trigger on the
 * accounts tables records what `current_setting('ward.actor', true)` reads in the writing
 * transaction, as an audit trigger would.
 */
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { generate } from 'otplib';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { hashSecret } from '../../src/auth/tokens.ts';
import { PASSWORD, addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

/** Inserts, updates and deletes of every accounts table, with the actor their transaction set. */
const WATCHED = [
  'base_user',
  'base_user_role',
  'base_user_totp',
  'base_recovery_code',
  'base_sign_in_challenge',
];

async function captureActors(knex: Knex): Promise<void> {
  await knex.raw(`create table test_actor_capture (
    id bigserial primary key, tbl text not null, op text not null, actor text)`);
  await knex.raw(`create function test_capture_actor() returns trigger language plpgsql as $$
    begin
      insert into test_actor_capture (tbl, op, actor)
        values (tg_table_name, tg_op, current_setting('ward.actor', true));
      return null;
    end $$`);
  for (const table of WATCHED)
    await knex.raw(
      `create trigger test_capture after insert or update or delete on ?? for each row
      execute function test_capture_actor()`,
      [table],
    );
  // When a credential was last used is bookkeeping off the request; the credentials are not.
  await knex.raw(`create trigger test_capture after insert or delete on base_session for each row
    execute function test_capture_actor()`);
  await knex.raw(`create trigger test_capture after insert or delete or update of revoked_at
    on base_api_token for each row execute function test_capture_actor()`);
}

async function world(t: ExecutionContext) {
  const { knex } = await installedDatabase(t);
  const aliceId = await addUser(knex, 'alice', ['admin']);
  await addUser(knex, 'erin', ['admin']);
  await captureActors(knex);
  const { base } = await startApp(t, knex);
  let seen = 0;
  /** What was written since the last call: `table op by actor`, each line once, sorted. */
  const written = async (): Promise<string[]> => {
    const rows = (await knex('test_actor_capture').where('id', '>', seen).orderBy('id')) as Array<{
      id: number;
      tbl: string;
      op: string;
      actor: string | null;
    }>;
    seen = Number(rows.at(-1)?.id ?? seen);
    return [...new Set(rows.map((row) => `${row.tbl} ${row.op} by ${row.actor || 'nobody'}`))].sort();
  };
  return { knex, base, aliceId, written };
}

const sessionActor = (userId: number, secret: string) =>
  `user:${userId}:session:${hashSecret(secret).toString('hex').slice(0, 16)}`;

test('a sign-in is written by the user signing in; sign-out and a password change by the session', async (t) => {
  const { base, aliceId, written } = await world(t);
  const alice = await signIn(base, 'alice');
  t.deepEqual(await written(), [`base_session INSERT by user:${aliceId}:sign-in`]);

  const other = await signIn(base, 'alice');
  await written();
  const changed = await call(base, 'POST', '/api/v1/auth/password', {
    token: alice.token,
    json: { currentPassword: PASSWORD, newPassword: 'another long passphrase' },
  });
  t.is(changed.status, 204, changed.text);
  const by = sessionActor(aliceId, alice.token);
  t.deepEqual(await written(), [`base_session DELETE by ${by}`, `base_user UPDATE by ${by}`]);

  t.is((await call(base, 'POST', '/api/v1/auth/logout', { token: alice.token })).status, 204);
  t.deepEqual(await written(), [`base_session DELETE by ${by}`]);
  t.is((await call(base, 'GET', '/api/v1/me', { token: other.token })).status, 401);
});

test("two-factor setup is written by the user's session, and the second sign-in step by the user signing in", async (t) => {
  const { base, aliceId, written } = await world(t);
  const alice = await signIn(base, 'alice');
  await written();
  const setup = await call(base, 'POST', '/api/v1/auth/two-factor/setup', { token: alice.token });
  const { secret } = setup.body as { secret: string };
  const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) });
  const confirmed = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', {
    token: alice.token,
    json: { code },
  });
  t.is(confirmed.status, 200, confirmed.text);
  const by = sessionActor(aliceId, alice.token);
  t.deepEqual(await written(), [
    `base_recovery_code INSERT by ${by}`,
    `base_user_totp INSERT by ${by}`,
    `base_user_totp UPDATE by ${by}`,
  ]);

  const password = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'alice', password: PASSWORD },
  });
  const { challenge } = password.body as { challenge: string };
  const [recoveryCode] = (confirmed.body as { recoveryCodes: string[] }).recoveryCodes;
  const second = await call(base, 'POST', '/api/v1/auth/login/second-factor', {
    json: { challenge, recoveryCode },
  });
  t.is(second.status, 200, second.text);
  const signingIn = `by user:${aliceId}:sign-in`;
  const lines = await written();
  t.true(lines.includes(`base_session INSERT ${signingIn}`), lines.join('\n'));
  t.deepEqual(
    lines.filter((line) => !line.endsWith(signingIn)),
    [],
    'every write of the sign-in is by the user signing in',
  );
});

test("the staff administration's writes are by the administrator's session or API token", async (t) => {
  const { knex, base, aliceId, written } = await world(t);
  const alice = await signIn(base, 'alice');
  const erinId = ((await knex('base_user').where({ username: 'erin' }).first('id')) as { id: number }).id;
  const erinToken = await createApiToken(knex, { userId: erinId, role: null, name: 'ci', expiresAt: null });
  const adminToken = await createApiToken(knex, {
    userId: aliceId,
    role: null,
    name: 'ops',
    expiresAt: null,
  });
  await written();
  const bySession = sessionActor(aliceId, alice.token);
  const byToken = `user:${aliceId}:token:${adminToken.id}`;

  const steps: Array<[string, string, object | undefined, string, string[]]> = [
    [
      'POST',
      '/api/v1/users',
      { username: 'bob', roles: ['admin'], temporaryPassword: 'a temporary passphrase' },
      alice.token,
      [`base_user INSERT by ${bySession}`, `base_user_role INSERT by ${bySession}`],
    ],
    [
      'DELETE',
      '/api/v1/users/bob/roles/admin',
      undefined,
      alice.token,
      [`base_user_role DELETE by ${bySession}`],
    ],
    [
      'POST',
      '/api/v1/users/bob/roles',
      { role: 'admin' },
      adminToken.secret,
      [`base_user_role INSERT by ${byToken}`],
    ],
    [
      'POST',
      `/api/v1/users/erin/tokens/${erinToken.id}/revoke`,
      {},
      adminToken.secret,
      [`base_api_token UPDATE by ${byToken}`],
    ],
    ['POST', '/api/v1/users/bob/disable', {}, alice.token, [`base_user UPDATE by ${bySession}`]],
    ['POST', '/api/v1/users/bob/enable', {}, alice.token, [`base_user UPDATE by ${bySession}`]],
    [
      'POST',
      '/api/v1/users/bob/password',
      { temporaryPassword: 'another temporary one' },
      alice.token,
      [`base_user UPDATE by ${bySession}`],
    ],
  ];
  for (const [method, route, json, token, expected] of steps) {
    const answer = await call(base, method, route, { token, ...(json === undefined ? {} : { json }) });
    t.true(answer.status < 300, `${method} ${route}: ${answer.text}`);
    t.deepEqual(await written(), expected, `${method} ${route}`);
  }
});

/**
 * Sign-in, sign-out, failed sign-ins, two-factor set-up and the administration of users and tokens
 * over HTTP leave
 * audit rows naming who acted (the session or token, or `anonymous` for a failure), from where,
 * and on whom; the transactions of those writes carry the actor in `ward.actor` too.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { generate } from 'otplib';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { verifyChain } from '../../src/audit/verify.ts';
import { addUser, call, installedDatabase, PASSWORD, signIn, startApp } from '../helpers/app.ts';

const rows = (knex: Knex) =>
  knex('core_audit_event')
    .orderBy('id')
    .select('actor', 'user_id', 'action', 'kind', 'record_id', 'client', 'outcome', 'detail');

test('sign-in, a failed sign-in and sign-out are recorded, the session acting for itself', async (t) => {
  const { knex } = await installedDatabase(t);
  const ada = await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex);
  const before = (await rows(knex)).length;
  const wrong = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'ada', password: 'not the password' },
  });
  t.is(wrong.status, 401);
  const session = await signIn(base, 'ada');
  const out = await call(base, 'POST', '/api/v1/auth/logout', {
    cookie: session.cookie,
    csrf: session.csrfToken,
  });
  t.is(out.status, 204, out.text);
  const [failed, signedIn, signedOut] = (await rows(knex)).slice(before);
  t.like(failed, {
    actor: 'anonymous',
    user_id: null,
    action: 'auth.sign_in_failed',
    outcome: 'refused',
    detail: { username: 'ada', reason: 'invalid_credentials' },
  });
  t.truthy(failed!.client);
  t.regex(signedIn!.actor, new RegExp(`^user:${ada}:session:[0-9a-f]{16}$`));
  t.like(signedIn, { user_id: ada, action: 'auth.sign_in', record_id: String(ada), outcome: 'ok' });
  t.like(signedOut, { actor: signedIn!.actor, action: 'auth.sign_out', record_id: String(ada) });
  t.like(await verifyChain(knex), { intact: true });
});

test('a failed sign-in keeps the typed name only as the text log does: lowercased, or nothing when it cannot be a username', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex);
  const before = (await rows(knex)).length;
  for (const username of ['Ada', 'Hunter2 secret!pass'])
    t.is(
      (await call(base, 'POST', '/api/v1/auth/login', { json: { username, password: 'wrong' } })).status,
      401,
    );
  const [named, unnamed] = (await rows(knex)).slice(before);
  t.like(named, {
    action: 'auth.sign_in_failed',
    detail: { username: 'ada', reason: 'invalid_credentials' },
  });
  t.like(unnamed, {
    action: 'auth.sign_in_failed',
    detail: { username: '(not a valid username)', reason: 'invalid_credentials' },
  });
  t.false(JSON.stringify(await knex('core_audit_event').select('detail')).includes('Hunter2'));
});

test('creating a user, granting and removing a role, disabling, resetting and revoking a token are recorded as the admin', async (t) => {
  const { knex } = await installedDatabase(t);
  const adminId = await addUser(knex, 'root', ['admin']);
  const { secret, id: tokenId } = await createApiToken(knex, {
    userId: adminId,
    role: null,
    name: null,
    expiresAt: null,
  });
  const { base } = await startApp(t, knex);
  const as = (method: string, path: string, json?: unknown) =>
    call(base, method, `/api/v1${path}`, { token: secret, ...(json === undefined ? {} : { json }) });
  const before = (await rows(knex)).length;
  const created = await as('POST', '/users', {
    username: 'bob',
    temporaryPassword: 'plum tractor velvet 93',
    roles: [],
  });
  t.is(created.status, 201, created.text);
  const bob = (created.body as { id: number }).id;
  t.is((await as('POST', '/users/bob/roles', { role: 'admin' })).status, 200);
  t.is((await as('DELETE', '/users/bob/roles/admin')).status, 200);
  t.is(
    (await as('POST', '/users/bob/password', { temporaryPassword: 'quartz meadow lantern 7' })).status,
    200,
  );
  const { id: bobToken } = await createApiToken(knex, {
    userId: bob,
    role: null,
    name: 'script',
    expiresAt: null,
  });
  t.is((await as('POST', `/users/bob/tokens/${bobToken}/revoke`)).status, 200);
  t.is((await as('POST', '/users/bob/disable')).status, 200);
  const recorded = (await rows(knex)).slice(before);
  const actor = `user:${adminId}:token:${tokenId}`;
  t.deepEqual(
    recorded.map((row) => [row.actor, row.action, row.record_id]),
    [
      [actor, 'user.create', String(bob)],
      [actor, 'user.roles', String(bob)],
      [actor, 'user.roles', String(bob)],
      [actor, 'user.password', String(bob)],
      ['system', 'token.create', String(bobToken)],
      [actor, 'token.revoke', String(bobToken)],
      [actor, 'user.disable', String(bob)],
    ],
  );
  t.deepEqual(recorded[0]!.detail, { username: 'bob', roles: [], password: 'temporary' });
  t.deepEqual(recorded[1]!.detail, { granted: 'admin' });
  t.deepEqual(recorded[2]!.detail, { revoked: 'admin' });
  t.false(JSON.stringify(recorded).includes('plum'), 'no password reaches the trail');
  t.is(recorded[0]!.user_id, adminId);
});

test("a user's own password change is recorded as their session", async (t) => {
  const { knex } = await installedDatabase(t);
  const ada = await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex);
  const session = await signIn(base, 'ada');
  const changed = await call(base, 'POST', '/api/v1/auth/password', {
    cookie: session.cookie,
    csrf: session.csrfToken,
    json: { currentPassword: PASSWORD, newPassword: 'amber orchard kettle 55' },
  });
  t.is(changed.status, 204, changed.text);
  const last = (await rows(knex)).at(-1)!;
  t.regex(last.actor, new RegExp(`^user:${ada}:session:`));
  t.like(last, { action: 'user.password', record_id: String(ada) });
});

test('setting up, confirming and turning off two-factor sign-in are recorded, never the secret or codes', async (t) => {
  const { knex } = await installedDatabase(t);
  const ada = await addUser(knex, 'ada', ['admin']);
  const { secret: token, id: tokenId } = await createApiToken(knex, {
    userId: ada,
    role: null,
    name: null,
    expiresAt: null,
  });
  const { base } = await startApp(t, knex);
  const before = (await rows(knex)).length;
  const setup = await call(base, 'POST', '/api/v1/auth/two-factor/setup', { token });
  t.is(setup.status, 200, setup.text);
  const { secret } = setup.body as { secret: string };
  const wrong = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', {
    token,
    json: { code: '000000' },
  });
  t.is(wrong.status, 422, wrong.text);
  const confirmed = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', {
    token,
    json: { code: await generate({ secret }) },
  });
  t.is(confirmed.status, 200, confirmed.text);
  const { recoveryCodes } = confirmed.body as { recoveryCodes: string[] };
  const off = await call(base, 'POST', '/api/v1/auth/two-factor/disable', {
    token,
    json: { password: PASSWORD },
  });
  t.is(off.status, 204, off.text);
  const again = await call(base, 'POST', '/api/v1/auth/two-factor/disable', {
    token,
    json: { password: PASSWORD },
  });
  t.is(again.status, 409, again.text);

  const recorded = (await rows(knex)).slice(before);
  const actor = `user:${ada}:token:${tokenId}`;
  t.deepEqual(
    recorded
      .filter((row) => row.outcome === 'ok')
      .map((row) => [row.actor, row.action, row.kind, row.record_id]),
    [
      [actor, 'user.two_factor_setup', 'user', String(ada)],
      [actor, 'user.two_factor_enabled', 'user', String(ada)],
      [actor, 'user.two_factor_disabled', 'user', String(ada)],
    ],
    'a wrong code and turning off what is off change nothing and record no change',
  );
  t.deepEqual(recorded[1]!.detail, { recoveryCodes: recoveryCodes.length });
  const text = JSON.stringify(recorded);
  t.false(text.includes(secret), 'the secret stays out of the trail');
  t.false(
    recoveryCodes.some((code) => text.includes(code)),
    'the recovery codes stay out of the trail',
  );
  t.like(await verifyChain(knex), { intact: true });
});

test("an administrator turning off a user's two-factor sign-in is recorded as the administrator", async (t) => {
  const { knex } = await installedDatabase(t);
  const root = await addUser(knex, 'root', ['admin']);
  const bob = await addUser(knex, 'bob', []);
  const { secret: token, id: tokenId } = await createApiToken(knex, {
    userId: root,
    role: null,
    name: null,
    expiresAt: null,
  });
  await knex('base_user_totp').insert({
    user_id: bob,
    secret: 'JBSWY3DPEHPK3PXP',
    confirmed_at: knex.fn.now(),
  });
  const { base } = await startApp(t, knex);
  const before = (await rows(knex)).length;
  const off = await call(base, 'POST', '/api/v1/users/bob/two-factor/disable', { token });
  t.is(off.status, 200, off.text);
  const recorded = (await rows(knex)).slice(before);
  t.like(recorded, [
    { actor: `user:${root}:token:${tokenId}`, action: 'user.two_factor_disabled', record_id: String(bob) },
  ]);
  t.is(recorded.length, 1);
});

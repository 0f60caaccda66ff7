/** `ward tokens …` through the real bin/ward: printed once, stored hashed, listed without secrets. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { hashSecret, secretKind } from '../../src/auth/tokens.ts';
import { AUTH_MODULES, addUser, installedDatabase } from '../helpers/app.ts';
import { parseJson, scratchDir, ward } from '../helpers/cli.ts';

async function setup(t: ExecutionContext) {
  const { url, knex } = await installedDatabase(t);
  const storage = await scratchDir('ward-tokens-');
  await writeFile(
    path.join(storage, 'grants.json'),
    JSON.stringify({ roles: { sync_agent: ['intake.binary.write'] } }),
  );
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, WARD_MODULE_PATHS: AUTH_MODULES };
  await addUser(knex, 'sync', ['admin', 'sync_agent'], null);
  return { knex, env };
}

test('tokens create prints the token alone on stdout, once, and stores only its hash', async (t) => {
  const { knex, env } = await setup(t);
  const run = await ward(
    [
      'tokens',
      'create',
      '--user',
      'sync',
      '--role',
      'sync_agent',
      '--name',
      'agent A',
      '--expires-in',
      '30d',
    ],
    env,
  );
  t.is(run.code, 0, run.stderr);
  const token = run.stdout.trim();
  t.is(run.stdout, `${token}\n`, 'stdout is the token alone: TOKEN=$(ward tokens create …)');
  t.is(secretKind(token), 'token');
  t.regex(
    run.stderr,
    /^Created token 1 for sync \(role sync_agent only\), expiring \d{4}-.*Z\.\nIt is shown once, below; Ward keeps only its hash\. Revoke it with: ward tokens revoke 1\n$/,
  );
  const row = await knex('base_api_token').first();
  t.deepEqual(row.token_hash, hashSecret(token));
  t.false(JSON.stringify(row).includes(token.slice(7)));
  const days = (row.expires_at.getTime() - Date.now()) / 86_400_000;
  t.true(days > 29.9 && days <= 30, String(days));

  const list = await ward(['tokens', 'list'], env);
  t.false(list.stdout.includes(token.slice(7)), 'never listed');
  t.regex(
    list.stdout,
    /^ID +USER +ROLE +NAME +STATUS +EXPIRES +LAST USED\n1 +sync +sync_agent +agent A +active +\d{4}-\d\d-\d\d +-\n$/,
  );
});

test('tokens create --json, with the defaults: 90 days, every role of the user', async (t) => {
  const { env } = await setup(t);
  const created = parseJson<{ id: number; token: string; role: string | null; expiresAt: string }>(
    await ward(['tokens', 'create', '--user', 'sync', '--json'], env),
  );
  t.is(secretKind(created.token), 'token');
  t.is(created.role, null);
  const days = (Date.parse(created.expiresAt) - Date.now()) / 86_400_000;
  t.true(days > 89.9 && days <= 90);
  const never = parseJson<{ expiresAt: null }>(
    await ward(['tokens', 'create', '--user', 'sync', '--expires-in', 'never', '--json'], env),
  );
  t.is(never.expiresAt, null);
});

test('tokens create refuses bad input and creates nothing', async (t) => {
  const { knex, env } = await setup(t);
  await addUser(knex, 'carl', []);
  const cases: Array<[string[], number, RegExp]> = [
    [['--user', 'nobody'], 1, /there is no user nobody/],
    [
      ['--user', 'carl', '--role', 'sync_agent'],
      1,
      /carl does not have the role sync_agent.*\nhint: grant it first: ward users grant carl sync_agent/,
    ],
    [['--user', 'sync', '--expires-in', '1y'], 2, /"1y" is not a duration Ward understands/],
    [['--user', 'sync', '--name', 'x'.repeat(101)], 2, /the token name is longer than 100 characters/],
    [['--user', 'sync', '--name', 'ok\n5 root (all) fake'], 2, /the token name contains a control character/],
    [['--user', 'sync', '--name', 'red \u001b[31mRED'], 2, /the token name contains a control character/],
    [[], 2, /Missing required flag user/],
  ];
  for (const [args, code, message] of cases) {
    const run = await ward(['tokens', 'create', ...args], env);
    t.is(run.code, code, args.join(' '));
    t.regex(run.stderr, message);
    t.is(run.stdout, '', 'no token printed');
  }
  t.is((await knex('base_api_token').select()).length, 0);
});

test('tokens revoke: once, then it says so; unknown and malformed ids are refused', async (t) => {
  const { knex, env } = await setup(t);
  await ward(['tokens', 'create', '--user', 'sync'], env);
  const revoked = await ward(['tokens', 'revoke', '1'], env);
  t.is(revoked.code, 0, revoked.stderr);
  t.is(revoked.stdout, 'Token 1 is revoked.\n');
  t.truthy((await knex('base_api_token').first()).revoked_at);
  const again = await ward(['tokens', 'revoke', '1', '--json'], env);
  t.deepEqual(parseJson(again), { id: 1, changed: false });
  const unknown = await ward(['tokens', 'revoke', '7'], env);
  t.is(unknown.code, 1);
  t.is(unknown.stderr, 'error: there is no API token 7\nhint: list tokens with `ward tokens list`\n');
  const malformed = await ward(['tokens', 'revoke', 'abc'], env);
  t.is(malformed.code, 2);
  t.regex(malformed.stderr, /"abc" is not a token id/);
  const list = parseJson<Array<{ id: number; status: string }>>(
    await ward(['tokens', 'list', '--json'], env),
  );
  t.like(list, [{ id: 1, status: 'revoked' }]);
});

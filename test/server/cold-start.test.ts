/**
 * A backend runs from its bundle (src/server/backend-bundle.ts), and answers /health and the API
 * from it. A start with nothing to change does without knex (src/db/lazy-knex.ts): its checks are
 * plain queries, `/health` answers from a plain pool, and knex is loaded once the backend serves,
 * before any other request is answered; the sign-in change listener connects after that answer too.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { RECORD_LOADS, scratchDir } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows } from '../helpers/rows.ts';
import { serve } from '../helpers/serve.ts';

test('a backend from the bundle listens without loading knex; sign-in then works through it', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [{ name: 'base', state: 'to_install' }]);
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir(), LOG_LEVEL: 'warn' };
  // The first start installs base and creates the first admin, whose password file stays.
  const first = await serve(env);
  t.is(await first.stop(), 0);

  const file = path.join(await scratchDir('ward-loads-'), 'loaded');
  const second = await serve({
    ...env,
    NODE_OPTIONS: `--import=${RECORD_LOADS}`,
    RECORD_LOADS_TO: file,
    RECORD_LOADS_AT: 'listening',
  });
  t.teardown(() => second.stop());
  const loaded = await readFile(file, 'utf8');
  t.regex(loaded, /\/build\/backend\.mjs$/m, 'the loads were recorded as the backend listened');
  t.notRegex(loaded, /\/src\/(server\/(server|backend|backend-main)|api\/app)\.ts/, 'it ran from the bundle');
  t.notRegex(loaded, /node_modules\/(knex|lodash)\/|\/build\/knex-/, 'knex was not loaded to start');
  t.notRegex(
    loaded,
    /node_modules\/(koa|cookies|mime-types|mime-db|type-is|http-errors|content-disposition)\//,
    'no web framework, and none of the request libraries a request loads when it first needs them',
  );

  const health = await fetch(`${second.base}/health`);
  t.is(health.status, 200);
  const login = await fetch(`${second.base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'not the password' }),
  });
  t.is(login.status, 401, 'the user lookup ran on knex, loaded after the start');
  const password = (await readFile(path.join(env.WARD_STORAGE_DIR, 'first-admin-password'), 'utf8')).trim();
  const signedIn = await fetch(`${second.base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  t.is(signedIn.status, 200);
  // Connected after the first answer rather than before listening: until then the principal
  // cache is off and every request reads the database.
  for (let attempt = 0; (await authListeners(knex)) === 0; attempt++) {
    if (attempt > 200) return t.fail('the sign-in change listener never connected');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.pass();
});

const authListeners = async (knex: Knex): Promise<number> => {
  const [row] = await knex('pg_stat_activity')
    .where('datname', knex.raw('current_database()'))
    .andWhere('query', 'LISTEN ward_auth')
    .count<{ n: string }[]>('* as n');
  return Number(row?.n);
};

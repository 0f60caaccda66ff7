/**
 * Who acts, in the transaction: the `clerk` fixture writes to the `ledger` fixture only through
 * ledger's public API (`sdk.modules.get`), from a route, a command and a hook; `ledger_entry.actor`
 * defaults to `current_setting('ward.actor', true)`, so each row shows what a database trigger
 * would read inside the transaction that wrote it.
 */
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { acting } from '../../src/db/acting.ts';
import { moduleSdk } from '../../src/sdk/runtime.ts';
import { addUser, call, install, signIn, startApp } from '../helpers/app.ts';
import { FIXTURES, scratchDir, ward } from '../helpers/cli.ts';
import { templateDatabase, testDatabase } from '../helpers/database.ts';

const MODULES = path.join(FIXTURES, 'modules', 'acting');

let template: Promise<string> | undefined;

async function world(t: ExecutionContext) {
  template ??= templateDatabase((url) => install(url, ['clerk'], MODULES));
  const { url, knex } = await testDatabase(t, { template: await template });
  const userId = await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex, { modulePaths: MODULES });
  const entries = async () =>
    (await knex('ledger_entry').orderBy('id').select('note', 'actor')) as Array<{
      note: string;
      actor: string;
    }>;
  return { url, knex, base, userId, entries };
}

test('a hook writing through another module’s API acts as system, in its step’s transaction', async (t) => {
  const { entries } = await world(t);
  t.deepEqual(await entries(), [{ note: 'clerk installed', actor: 'system' }]);
});

test('an HTTP write through another module’s API is attributed to the caller and their token or session', async (t) => {
  const { knex, base, userId, entries } = await world(t);
  const token = await createApiToken(knex, { userId, role: null, name: 'script', expiresAt: null });
  const byToken = await call(base, 'POST', '/api/v1/clerk/notes', {
    token: token.secret,
    json: { note: 'by token' },
  });
  t.is(byToken.status, 201, byToken.text);
  const session = await signIn(base, 'ada');
  const bySession = await call(base, 'POST', '/api/v1/clerk/notes', {
    token: session.token,
    json: { note: 'by session' },
  });
  t.is(bySession.status, 201, bySession.text);
  const [, tokenEntry, sessionEntry] = await entries();
  t.is(tokenEntry!.actor, `user:${userId}:token:${token.id}`);
  t.regex(sessionEntry!.actor, new RegExp(`^user:${userId}:session:[0-9a-f]{16}$`));
  t.false(sessionEntry!.actor.includes(session.token), 'the session secret is never the actor');
});

test('writes through an API inside the caller’s transaction commit or roll back together', async (t) => {
  const { base, entries } = await world(t);
  const { token } = await signIn(base, 'ada');
  const refused = await call(base, 'POST', '/api/v1/clerk/pairs', { token, json: { notes: ['kept?', ' '] } });
  t.is(refused.status, 422);
  t.deepEqual(
    (await entries()).map((entry) => entry.note),
    ['clerk installed'],
    'the first note went with the second',
  );
  const both = await call(base, 'POST', '/api/v1/clerk/pairs', { token, json: { notes: ['one', 'two'] } });
  t.is(both.status, 200, both.text);
  t.deepEqual(
    (await entries()).map((entry) => entry.note),
    ['clerk installed', 'one', 'two'],
  );
});

test('a module command acts as cli:<the operator> through another module’s API', async (t) => {
  const { url, entries } = await world(t);
  const run = await ward(['modules', 'run', 'clerk', 'note', 'from', 'the', 'shell'], {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir(),
    WARD_MODULE_PATHS: MODULES,
  });
  t.is(run.code, 0, run.stderr);
  const operator = `cli:${os.userInfo().username}`;
  t.regex(run.stdout, new RegExp(`^entry \\d+ by ${operator}\\n$`));
  t.deepEqual((await entries()).at(-1), { note: 'from the shell', actor: operator });
});

test('ward.actor is local to the acting transaction: outside it, nobody acts', async (t) => {
  const { knex } = await world(t);
  const job = acting(knex, 'job:ledger:7');
  const inside = await job.transaction(
    async (trx) =>
      (
        (await trx.raw(`select current_setting('ward.actor', true) as actor`)) as {
          rows: [{ actor: string }];
        }
      ).rows[0].actor,
  );
  t.is(inside, 'job:ledger:7');
  const after = (await knex.raw(`select coalesce(current_setting('ward.actor', true), '') as actor`)) as {
    rows: [{ actor: string }];
  };
  t.is(after.rows[0].actor, '');
});

test('a module gets only the APIs of the modules in its depends', (t) => {
  const sdk = moduleSdk({
    module: 'clerk',
    knex: null,
    apis: new Map([['ledger', {}]]),
    depends: ['ledger'],
  });
  t.deepEqual(sdk.modules.get('ledger'), {});
  t.throws(() => sdk.modules.get('patients'), {
    message: 'module clerk asks for the API of module patients, which is not in its depends',
  });
  const bare = moduleSdk({ module: 'clerk', knex: null, apis: new Map(), depends: ['base'] });
  t.throws(() => bare.modules.get('base'), { message: /module base has no public API/ });
});

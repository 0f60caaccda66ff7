/**
 * The restart endpoint asks the preflight first: while the next start would refuse, it answers 409
 * with the findings and the backend keeps serving, unless the caller forces the restart.
 */
import test from 'ava';
import pg from 'pg';
import { parseRequest, PROCESS_ID, type RestartRequest } from '../../src/db/restart-signal.ts';
import type { Finding } from '../../src/planner/preflight.ts';
import { addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

const GRANTS_BROKEN: Finding = {
  code: 'invalid_grants_file',
  message: "/srv/grants.json: is not valid JSON: Unexpected token ']' at line 3, column 24",
  hint: 'fix the file',
};

async function admin(t: Parameters<typeof installedDatabase>[0], findings: Finding[]) {
  const { knex, url } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  let checks = 0;
  const app = await startApp(t, knex, {
    overrides: {
      preflight: async () => {
        checks++;
        return findings;
      },
    },
  });
  const { token } = await signIn(app.base, 'ada');
  const restart = (query = '', json?: unknown) =>
    call(app.base, 'POST', `/api/v1/modules/-/restart${query}`, { token, json });
  return { ...app, url, restart, checks: () => checks };
}

/** onRestart runs once the answer is out, if it runs: give it the time to. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

test('restart: 409 restart_refused with the findings while the next start would refuse, and no restart', async (t) => {
  const { restart, restarts, checks } = await admin(t, [GRANTS_BROKEN]);
  const answer = await restart();
  t.is(answer.status, 409, answer.text);
  const { error } = answer.body as {
    error: { code: string; message: string; hint: string; findings: unknown };
  };
  t.is(error.code, 'restart_refused');
  t.regex(error.message, /^not restarted: the backend would refuse to start again:\n/);
  t.regex(error.message, /grants\.json: is not valid JSON: .* at line 3, column 24\n {2}fix: fix the file/);
  t.regex(error.hint, /a running backend keeps serving; .*force=true/);
  t.deepEqual(error.findings, [GRANTS_BROKEN]);
  await settled();
  t.is(restarts(), 0);
  t.is(checks(), 1);
});

test('restart: ?force=true or {"force": true} restarts without asking the preflight', async (t) => {
  const { restart, restarts, checks } = await admin(t, [GRANTS_BROKEN]);
  t.is((await restart('?force=true')).status, 202);
  t.is((await restart('', { force: true })).status, 202);
  await settled();
  t.is(restarts(), 2);
  t.is(checks(), 0);
});

test('restart: a force that is not a boolean is refused, and nothing restarts', async (t) => {
  const { restart, restarts } = await admin(t, []);
  const query = await restart('?force=yes');
  t.is(query.status, 400);
  t.is((query.body as { error: { message: string } }).error.message, 'force must be true or false');
  const body = await restart('', { force: 'yes' });
  t.is(body.status, 422);
  t.is(
    (body.body as { error: { message: string } }).error.message,
    'the request body is invalid at /force: must be a boolean',
  );
  await settled();
  t.is(restarts(), 0);
});

test('restart: with nothing found, 202 and the restart', async (t) => {
  const { restart, restarts, checks } = await admin(t, []);
  t.is((await restart('', {})).status, 202);
  await settled();
  t.is(restarts(), 1);
  t.is(checks(), 1);
});

test('restart: every other backend replica on the database is asked to restart too, and says how many', async (t) => {
  const { restart, restarts, url } = await admin(t, []);
  // Another replica, as a backend announces itself: in another container its pid may be ours.
  const other = `${process.pid}-ffffffff`;
  const replica = new pg.Client({ connectionString: url, application_name: `ward-backend:${other}` });
  await replica.connect();
  t.teardown(() => replica.end());
  const asked: RestartRequest[] = [];
  replica.on('notification', (message) => asked.push(parseRequest(message.payload ?? '')));
  await replica.query('LISTEN ward_restart');
  const answer = await restart();
  t.is(answer.status, 202);
  t.like(answer.body, { replicas: 1 });
  await settled();
  t.is(restarts(), 1, 'this backend restarts');
  t.deepEqual(asked, [{ force: false, backends: [other] }], 'the replica, and only it, is asked, unforced');
  t.not(other, PROCESS_ID);
});

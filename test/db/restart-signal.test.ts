/**
 * The restart listener keeps listening through a database outage: a lost connection is retried,
 * and so is every retry that fails while the database still refuses connections.
 */
import test from 'ava';
import pg from 'pg';
import {
  addressedTo,
  PROCESS_ID,
  listenAsSupervisor,
  listenForRestart,
  parseRequest,
  requestRestart,
  runningSupervisors,
  type RestartRequest,
} from '../../src/db/restart-signal.ts';
import { silentLogger } from '../../src/logger.ts';
import { testDatabase } from '../helpers/database.ts';

const until = async (done: () => boolean, ms: number): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return done();
};

test('a restart request arrives after the listener lost its connection and a reconnect failed', async (t) => {
  const { url, knex } = await testDatabase(t);
  const name = new URL(url).pathname.slice(1);
  // A database cannot refuse connections to itself: the outage is staged from the server's own.
  const server = new URL(url);
  server.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  t.teardown(() => admin.end());
  let restarts = 0;
  const listener = await listenForRestart(url, silentLogger, () => restarts++);
  t.teardown(() => listener.close());
  // An outage: the listener's session is cut and the database refuses new ones for a while.
  await admin.query(`alter database "${name}" with allow_connections false`);
  await admin.query(
    `select pg_terminate_backend(pid) from pg_stat_activity
      where datname = $1 and application_name like 'ward-backend:%'`,
    [name],
  );
  // Reconnects come after 0.5 s, 1 s and 2 s: the first ones fail while connections are refused,
  // and the listener must keep trying.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  await admin.query(`alter database "${name}" with allow_connections true`);
  // Notifications only reach a session that is listening: ask until one arrives.
  const deadline = Date.now() + 10_000;
  while (restarts === 0 && Date.now() < deadline) {
    await requestRestart(knex);
    await until(() => restarts > 0, 500);
  }
  t.true(restarts > 0, 'the listener reconnected after its first retry failed');
});

test('a request names the backends it is for: another backend ignores it, one with no backend named only wakes supervisors', async (t) => {
  const { url, knex } = await testDatabase(t);
  const backend: RestartRequest[] = [];
  const supervisor: RestartRequest[] = [];
  const listener = await listenForRestart(url, silentLogger, (request) => backend.push(request));
  t.teardown(() => listener.close());
  const woken = listenAsSupervisor(
    async () => url,
    silentLogger,
    (request) => supervisor.push(request),
  );
  t.teardown(() => woken.close());
  let supervisorUp = false;
  const poll = setInterval(() => {
    void runningSupervisors(knex).then((found) => (supervisorUp ||= found.length > 0));
  }, 50);
  t.teardown(() => clearInterval(poll));
  // The supervisor announces itself once it listens.
  t.true(await until(() => supervisorUp, 10_000));
  // Another process with the same pid (another container's backend) is another backend.
  const samePid = `${process.pid}-00000000`;
  await requestRestart(knex, { force: false, backends: [samePid] });
  await requestRestart(knex, { force: false, backends: [] });
  await requestRestart(knex, { force: true, backends: [PROCESS_ID] });
  // Notifications arrive in the order they were sent: once the last is here, so are the others.
  t.true(await until(() => backend.length > 0 && supervisor.length === 3, 10_000));
  t.deepEqual(backend, [{ force: true, backends: [PROCESS_ID] }], 'only the request naming this backend');
  t.deepEqual(
    supervisor.map((request) => request.backends),
    [[samePid], [], [PROCESS_ID]],
  );
});

test('a payload from an older CLI, without backends or naming them by pid, is for every backend', (t) => {
  t.deepEqual(parseRequest('{"force":true}'), { force: true, backends: null });
  t.deepEqual(parseRequest(''), { force: false, backends: null });
  t.deepEqual(parseRequest('{"force":false,"backends":[1,4242]}'), { force: false, backends: null });
  t.true(addressedTo(parseRequest('{"force":false}'), '4242-0a0b0c0d'));
  t.false(addressedTo(parseRequest('{"force":false,"backends":[]}'), '4242-0a0b0c0d'));
  t.true(
    addressedTo(parseRequest('{"force":false,"backends":["1-ffffffff","4242-0a0b0c0d"]}'), '4242-0a0b0c0d'),
  );
  t.false(addressedTo(parseRequest('{"force":false,"backends":["4242-ffffffff"]}'), '4242-0a0b0c0d'));
});

test('each process has its own id, whose first part is its pid', (t) => {
  t.regex(PROCESS_ID, new RegExp(`^${process.pid}-[0-9a-f]{8}$`));
});

/**
 * The restart listener keeps listening through a database outage: a lost connection is retried,
 * and so is every retry that fails while the database still refuses connections.
 */
import test from 'ava';
import pg from 'pg';
import { listenForRestart, requestRestart } from '../../src/db/restart-signal.ts';
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

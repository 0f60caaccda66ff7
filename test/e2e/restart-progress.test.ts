/**
 * `ward modules restart --wait` follows a restart by LISTENing to the steps the backends announce,
 * and takes the outcome from the operation log. The backend here is the test itself: a session
 * named the way a backend names its restart listener, which answers the restart request with
 * notices (or log rows) of its own and then comes back as a new session, as a restarted backend
 * does. So every line printed has one known source.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import pg from 'pg';
import { openBoth } from '../../src/cli/commands/modules/restart.ts';
import { scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';

/** A stand-in backend: `answer` runs once `ward modules restart` asks it to restart. */
async function fakeBackend(t: ExecutionContext, url: string, answer: (client: pg.Client) => Promise<void>) {
  const session = async (pid: number) => {
    const client = new pg.Client({ connectionString: url, application_name: `ward-backend:${pid}` });
    await client.connect();
    t.teardown(() => client.end().catch(() => undefined));
    return client;
  };
  const old = await session(2_000_001);
  await old.query('LISTEN ward_restart');
  const restarted = new Promise<void>((resolve) => old.once('notification', () => resolve()));
  return async () => {
    await restarted;
    await answer(old);
    await old.end();
    await session(2_000_002);
  };
}

async function setup(t: ExecutionContext) {
  const { url, knex } = await testDatabase(t, { migrated: true });
  return { url, knex, env: { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir() } };
}

const notice = (step: string, status: string, message: string | null = null) =>
  JSON.stringify({ module: 'lab', operation: 'install', step, status, message });

test('modules restart --wait prints the steps announced over NOTIFY as they come', async (t) => {
  const { url, knex, env } = await setup(t);
  const restart = await fakeBackend(t, url, async (client) => {
    await client.query('select pg_notify($1, $2)', ['ward_steps', notice('migrate', 'started')]);
    await client.query('select pg_notify($1, $2)', ['ward_steps', notice('migrate', 'done')]);
  });
  const [run] = await Promise.all([ward(['modules', 'restart', '--wait'], env), restart()]);
  t.is(run.code, 0, run.stdout + run.stderr);
  t.regex(run.stdout, /Asked 1 running backend\(s\) to restart\./);
  t.regex(run.stdout, /^ {2}install lab: migrate started\n {2}install lab: migrate done\n/m);
  t.regex(run.stdout, /Backends are back\.$/m);
  t.deepEqual(await knex('core_module_operation_log').pluck('id'), [], 'none of it came from the log');
});

test('modules restart --wait prints and counts the logged steps it was not told of', async (t) => {
  const { url, env } = await setup(t);
  const restart = await fakeBackend(t, url, async (client) => {
    await client.query('select pg_notify($1, $2)', ['ward_steps', notice('seed', 'started')]);
    await client.query(
      `insert into core_module_operation_log (run_id, module_name, operation, step, status, message)
       values ($1, 'lab', 'install', 'seed', 'started', null), ($1, 'lab', 'install', 'seed', 'failed', 'boom')`,
      ['00000000-0000-4000-8000-000000000001'],
    );
  });
  const [run] = await Promise.all([ward(['modules', 'restart', '--wait'], env), restart()]);
  t.is(run.code, 1, run.stdout + run.stderr);
  t.is(
    run.stdout.match(/install lab: seed started/g)?.length,
    1,
    'a step announced and logged is printed once',
  );
  t.regex(run.stdout, /^ {2}install lab: seed failed \(boom\)$/m);
  t.regex(run.stdout, /1 module step\(s\) failed, were skipped or blocked; see `ward modules doctor`\.$/m);
});

test('modules restart --wait exits 1 when a module was blocked, and says so', async (t) => {
  const { url, env } = await setup(t);
  const restart = await fakeBackend(t, url, async (client) => {
    await client.query(
      `insert into core_module_operation_log (run_id, module_name, operation, step, status, message)
       values ($1, 'lab', 'install', 'blocked', 'skipped', 'base, which lab needs, is uninstalled')`,
      ['00000000-0000-4000-8000-000000000001'],
    );
    await client.query('select pg_notify($1, $2)', [
      'ward_steps',
      notice('blocked', 'skipped', 'base, which lab needs, is uninstalled'),
    ]);
  });
  const [run] = await Promise.all([ward(['modules', 'restart', '--wait'], env), restart()]);
  t.is(run.code, 1, run.stdout + run.stderr);
  t.is(
    run.stdout.match(/^ {2}install lab: blocked skipped \(base, which lab needs, is uninstalled\)$/gm)
      ?.length,
    1,
  );
  t.regex(run.stdout, /1 module step\(s\) failed, were skipped or blocked; see `ward modules doctor`\.$/m);
  t.notRegex(run.stdout, /Backends are back/);
});

test('openBoth closes the listener that opened when the other fails', async (t) => {
  const closed: string[] = [];
  const opened = (name: string) => Promise.resolve({ close: async () => void closed.push(name) });
  await t.throwsAsync(openBoth(opened('steps'), Promise.reject(new Error('refusals: no connection'))), {
    message: 'refusals: no connection',
  });
  await t.throwsAsync(openBoth(Promise.reject(new Error('steps: no connection')), opened('refusals')), {
    message: 'steps: no connection',
  });
  t.deepEqual(closed, ['steps', 'refusals']);
  const both = await openBoth(opened('a'), opened('b'));
  t.is(both.length, 2);
  t.deepEqual(closed, ['steps', 'refusals'], 'nothing is closed when both open');
});

/**
 * The supervisor, with real processes: a stand-in backend (test/fixtures/supervised/backend.ts)
 * speaks the real IPC and records what happens to it, so these tests need no database and can look
 * at every start and stop.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { pino } from 'pino';
import { supervise } from '../../src/server/supervisor.ts';
import { FIXTURES, scratchDir } from '../helpers/cli.ts';
import { alive } from '../helpers/serve.ts';

const BACKEND = path.join(FIXTURES, 'supervised', 'backend.ts');

interface Event {
  pid: number;
  event: string;
}

interface LogRecord {
  msg: string;
  time: number;
  delayMs?: number;
}

async function supervised(t: ExecutionContext, options: { args?: string[] } = {}) {
  const dir = await scratchDir('ward-supervisor-');
  const file = path.join(dir, 'events.jsonl');
  await writeFile(file, '');
  const logs: string[] = [];
  const delays: number[] = [];
  const records: LogRecord[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        const record = JSON.parse(line) as LogRecord;
        records.push(record);
        logs.push(record.msg);
        if (record.delayMs !== undefined) delays.push(record.delayMs);
      },
    },
  );
  const supervisor = supervise(process.execPath, [BACKEND, file, ...(options.args ?? [])], logger);
  t.teardown(async () => {
    supervisor.stop('SIGTERM');
    await supervisor.done;
  });
  const events = async (): Promise<Event[]> =>
    (await readFile(file, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Event);
  const pids = async (event: string) =>
    (await events()).filter((entry) => entry.event === event).map((entry) => entry.pid);
  const until = async (what: string, done: () => boolean | Promise<boolean>) => {
    const deadline = Date.now() + 120_000;
    while (!(await done())) {
      if (Date.now() > deadline)
        throw new Error(`${what} did not happen:\n${JSON.stringify(await events())}\n${logs.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { supervisor, logs, records, delays, events, pids, until };
}

test('a requested restart stops the backend gracefully and starts a new one at once', async (t) => {
  const { supervisor, pids, until, delays } = await supervised(t);
  await until('the first start', async () => (await pids('started')).length === 1);
  const [first] = await pids('started');
  supervisor.restart();
  await until('the second start', async () => (await pids('started')).length === 2);
  t.deepEqual(await pids('stopped'), [first as number], 'the first backend stopped gracefully');
  t.not((await pids('started'))[1], first, 'a new process');
  t.deepEqual(delays, [0], 'a requested restart does not back off');
});

test('stopping ends the backend, and is done only once it has exited', async (t) => {
  const { supervisor, pids, until } = await supervised(t);
  await until('the first start', async () => (await pids('started')).length === 1);
  const [backend] = await pids('started');
  supervisor.stop('SIGTERM');
  t.is(await supervisor.done, 0);
  t.false(alive(backend as number));
  t.deepEqual(await pids('stopped'), [backend as number], 'the backend stopped gracefully');
  t.is((await pids('started')).length, 1, 'nothing started after the stop');
});

test('a backend that fails before it serves is started again with back-off', async (t) => {
  const { pids, until, delays } = await supervised(t, { args: ['fail'] });
  await until('three starts', async () => (await pids('started')).length >= 3);
  t.deepEqual(delays.slice(0, 2), [250, 500]);
});

test('a backend that fails before it serves backs off however long its start took', async (t) => {
  // Longer than the 10 s a backend must serve to count as a fresh start when it fails.
  const { pids, until, delays } = await supervised(t, { args: ['fail-ms=10500'] });
  await until('a second start', async () => (await pids('started')).length >= 2);
  t.deepEqual(delays.slice(0, 1), [250]);
});

test('a backend whose address is taken is not started again: the supervisor stops, with status 1', async (t) => {
  const { supervisor, pids, logs } = await supervised(t, { args: ['address-taken'] });
  t.is(await supervisor.done, 1);
  t.is((await pids('started')).length, 1);
  t.true(
    logs.includes(
      'the backend cannot listen: its address is in use (see its error above); not starting it again',
    ),
  );
});

test('a backend that served once and then finds its address taken is started again, with back-off', async (t) => {
  const { supervisor, pids, until } = await supervised(t, { args: ['serve-then-taken'] });
  await until('a second start', async () => (await pids('started')).length >= 2);
  supervisor.stop('SIGTERM');
  t.is(await supervisor.done, 0);
});

test('a wake while the supervisor backs off starts the backend at once, not when the back-off ends', async (t) => {
  const { supervisor, pids, until, records } = await supervised(t, { args: ['fail'] });
  // A back-off of 4 s leaves the wake below ample time to land within it, however loaded the machine.
  await until('a back-off of 4 s', () => records.some((record) => record.delayMs === 4000));
  const startsBefore = (await pids('started')).length;
  supervisor.wake('the grants file changed');
  await until('the next start', async () => (await pids('started')).length > startsBefore);
  // Logged only when the wake cut a back-off short; the back-off's own end logs nothing.
  t.true(
    records.some((record) =>
      record.msg.startsWith('the grants file changed; starting the backend now instead of waiting out'),
    ),
  );
});

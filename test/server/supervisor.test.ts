/**
 * The supervisor and its warm spare, with real processes: a stand-in backend
 * (test/fixtures/supervised/backend.ts) speaks the real IPC and records what happens to it, so
 * these tests need no database and can look at every hand-over.
 */
import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { pino } from 'pino';
import { codeChangedSince } from '../../src/server/spare.ts';
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

/** A directory shaped like Ward's (src/, package.json). */
async function codeRoot(): Promise<string> {
  const root = await scratchDir('ward-code-');
  await mkdir(path.join(root, 'src', 'api'), { recursive: true });
  for (const file of ['package.json', 'src/backend.ts', 'src/api/app.ts'])
    await writeFile(path.join(root, file), '');
  return root;
}

/**
 * A restart waits this long for a loading spare: far more than one takes, however loaded the
 * machine, so that only the test of a stuck spare sees the wait run out.
 */
const GENEROUS_READY_MS = 120_000;

async function supervised(
  t: ExecutionContext,
  options: { spare?: boolean; args?: string[]; readyTimeoutMs?: number } = {},
) {
  const dir = await scratchDir('ward-supervisor-');
  const file = path.join(dir, 'events.jsonl');
  await writeFile(file, '');
  const root = await codeRoot();
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
  const supervisor = supervise(
    process.execPath,
    [BACKEND, file, ...(options.args ?? [])],
    logger,
    options.spare === false
      ? {}
      : { spare: { codeRoot: root, readyTimeoutMs: options.readyTimeoutMs ?? GENEROUS_READY_MS } },
  );
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
  const spareReady = (count = 1) =>
    until(
      `spare ${count} ready`,
      () => logs.filter((msg) => msg === 'a spare backend is ready').length >= count,
    );
  return { supervisor, root, logs, records, delays, events, pids, until, spareReady };
}

test('once a backend serves, a spare is started; a restart hands over to it, and a new spare follows', async (t) => {
  const { supervisor, pids, until, spareReady, logs } = await supervised(t);
  await spareReady();
  const [first] = await pids('started');
  const [spare] = await pids('spare');
  supervisor.restart();
  await until('the hand-over', async () => (await pids('started from spare')).length === 1);
  t.deepEqual(await pids('started from spare'), [spare as number]);
  t.deepEqual(await pids('stopped'), [first as number]);
  t.deepEqual(await pids('started'), [first as number], 'nothing started from scratch');
  t.true(logs.includes('the spare backend takes over'));
  await spareReady(2);
  t.is((await pids('spare')).length, 2);
});

test('a restart while the spare is still loading waits for it rather than starting another', async (t) => {
  const { supervisor, pids, until } = await supervised(t, { args: ['load-ms=1500'] });
  await until('the spare', async () => (await pids('spare')).length === 1);
  const [spare] = await pids('spare');
  supervisor.restart();
  await until('the hand-over', async () => (await pids('started from spare')).length === 1);
  t.deepEqual(await pids('started from spare'), [spare as number]);
  t.is((await pids('started')).length, 1, 'nothing started from scratch');
});

test('a spare whose Ward code changed on disk is ended, and the backend starts from scratch', async (t) => {
  const { supervisor, root, pids, until, spareReady, logs } = await supervised(t);
  await spareReady();
  const [spare] = await pids('spare');
  await writeFile(path.join(root, 'src', 'api', 'app.ts'), 'changed');
  supervisor.restart();
  await until('a start from scratch', async () => (await pids('started')).length === 2);
  t.deepEqual(await pids('started from spare'), []);
  t.true(logs.includes('Ward code changed since the spare backend started; starting a backend from scratch'));
  await until('the old spare to exit', () => !alive(spare as number));
});

test('a spare that dies is reported, and the next start is from scratch', async (t) => {
  const { supervisor, pids, until, spareReady, logs } = await supervised(t);
  await spareReady();
  const [spare] = await pids('spare');
  process.kill(spare as number, 'SIGKILL');
  await until('the warning', () =>
    logs.includes(
      'the spare backend exited before it was needed; the next start loads a backend from scratch',
    ),
  );
  supervisor.restart();
  await until('a start from scratch', async () => (await pids('started')).length === 2);
  t.deepEqual(await pids('started from spare'), []);
});

test('stopping ends the backend and the spare, and is done only once both have exited', async (t) => {
  const { supervisor, pids, spareReady } = await supervised(t);
  await spareReady();
  const [backend] = await pids('started');
  const [spare] = await pids('spare');
  supervisor.stop('SIGTERM');
  await supervisor.done;
  t.false(alive(backend as number));
  t.false(alive(spare as number));
  t.deepEqual(await pids('stopped'), [backend as number], 'the backend stopped gracefully');
});

test('without the spare option every start is from scratch', async (t) => {
  const { supervisor, pids, until } = await supervised(t, { spare: false });
  await until('the first start', async () => (await pids('started')).length === 1);
  supervisor.restart();
  await until('the second start', async () => (await pids('started')).length === 2);
  t.deepEqual(await pids('spare'), []);
});

test('a backend that fails before it serves gets no spare, and the starts back off', async (t) => {
  const { pids, until, delays } = await supervised(t, { args: ['fail'] });
  await until('three starts', async () => (await pids('started')).length >= 3);
  t.deepEqual(await pids('spare'), []);
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
  const { supervisor, pids, until } = await supervised(t, { spare: false, args: ['serve-then-taken'] });
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

test('stopping while a restart waits for a loading spare ends it, and starts nothing', async (t) => {
  const { supervisor, pids, until } = await supervised(t, { args: ['load-ms=3000'] });
  await until('the spare', async () => (await pids('spare')).length === 1);
  const [spare] = await pids('spare');
  supervisor.restart();
  await until('the first backend to stop', async () => (await pids('stopped')).length === 1);
  supervisor.stop('SIGTERM');
  await supervisor.done;
  t.false(alive(spare as number));
  t.deepEqual(await pids('started from spare'), []);
  t.is((await pids('started')).length, 1);
});

test('a spare that does not get ready in time is ended, and the backend starts from scratch', async (t) => {
  const { supervisor, pids, until, logs } = await supervised(t, {
    args: ['load-ms=60000'],
    readyTimeoutMs: 1_000,
  });
  await until('the spare', async () => (await pids('spare')).length === 1);
  const [spare] = await pids('spare');
  supervisor.restart();
  await until('a start from scratch', async () => (await pids('started')).length === 2);
  t.true(logs.includes('the spare backend was not ready after 1000 ms; starting a backend from scratch'));
  await until('the stuck spare to exit', () => !alive(spare as number));
});

test('codeChangedSince: a changed, added or removed source file, package.json or the installed packages counts', async (t) => {
  /** A fresh code root, `change` made to it after the spare would have started. */
  const changed = async (change: (root: string) => Promise<unknown>) => {
    const root = await codeRoot();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const since = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await change(root);
    return codeChangedSince(root, since);
  };
  const write = (file: string) => async (root: string) => {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), 'new');
  };
  t.false(await changed(async () => undefined));
  t.true(await changed(write('src/api/app.ts')));
  t.true(await changed(write('src/api/new-file.ts')));
  t.true(await changed((root) => rm(path.join(root, 'src', 'backend.ts'))));
  t.true(await changed(write('package.json')));
  t.true(await changed(write('node_modules/.package-lock.json')));
  t.true(
    await changed(write('generated/manifest.validate.cjs')),
    'the validators built at install are Ward code',
  );
  t.true(
    await changed(async (root) => {
      // As `rsync -a` or `tar x` do: new content, the release's old modification time.
      await write('src/api/app.ts')(root);
      const old = new Date(Date.now() - 3_600_000);
      await utimes(path.join(root, 'src', 'api', 'app.ts'), old, old);
    }),
    'a copy that keeps old modification times',
  );
  t.false(await changed(write('modules/patients/routes.ts')), 'module code is not what a spare loads');
  t.false(await codeChangedSince(path.join(await codeRoot(), 'missing'), Date.now()));
});

import { readdir } from 'node:fs/promises';
import net from 'node:net';
import { Writable } from 'node:stream';
import test from 'ava';
import knexFactory from 'knex';
import { pino } from 'pino';
import { ensureEmbedded } from '../../src/db/embedded.ts';
import { watchDatabase, type EmbeddedControl } from '../../src/db/watchdog.ts';
import { silentLogger } from '../../src/logger.ts';
import { scratchDir } from '../helpers/cli.ts';

/** A port nothing listens on: one the system just handed out and that was closed again. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A logger whose lines are kept, and a promise of the first one `match` accepts. */
function capture(match: (line: Record<string, unknown>) => boolean) {
  let found: (line: Record<string, unknown>) => void = () => undefined;
  const line = new Promise<Record<string, unknown>>((resolve) => (found = resolve));
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const parsed = JSON.parse(chunk.toString()) as Record<string, unknown>;
      if (match(parsed)) found(parsed);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), line };
}

test('an external database the pool cannot reach is logged with what to check, without its password', async (t) => {
  const url = `postgres://clinic:s3cret@127.0.0.1:${await closedPort()}/wards`;
  const knex = knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: 1 },
    log: { warn: () => undefined },
  });
  const { logger, line } = capture((entry) => String(entry.msg).startsWith('database unavailable'));
  const watch = watchDatabase({ knex, url, storageDir: null, logger });
  t.teardown(async () => {
    await watch.close();
    await knex.destroy();
  });
  await t.throwsAsync(knex.raw('select 1'));
  const entry = await line;
  t.like(entry, {
    level: 40,
    code: 'database_unreachable',
    hint: 'check DATABASE_URL (unset it to use the embedded PostgreSQL) and that the server runs',
    retryInMs: 500,
  });
  t.regex(
    String(entry.msg),
    /^database unavailable: cannot reach the database at postgres:\/\/clinic:\*\*\*@127\.0\.0\.1:\d+\/wards \(ECONNREFUSED\); requests get 503 until it answers, next try in 500 ms$/,
  );
  t.false(JSON.stringify(entry).includes('s3cret'));
});

test('restarting the embedded server never creates an empty database where the old one is gone', async (t) => {
  const storage = await scratchDir('ward-gone-');
  const error = await t.throwsAsync(ensureEmbedded(storage, { initialise: false }));
  t.like(error, { code: 'embedded_missing' });
  t.regex(
    error.message,
    /^there is no embedded database under .*\/postgres any more \(.*\/ward\.json is gone\)$/,
  );
  t.regex(
    (error as Error & { hint: string }).hint,
    /put the storage folder back where WARD_STORAGE_DIR points/,
  );
  t.deepEqual(await readdir(storage), ['postgres']);
  t.deepEqual(await readdir(`${storage}/postgres`), [], 'no cluster, no lock left behind');
});

test('close waits for a check under way, which then never starts the embedded server again', async (t) => {
  const url = `postgres://ward:pw@127.0.0.1:${await closedPort()}/ward`;
  const knex = knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: 1 },
    log: { warn: () => undefined },
  });
  t.teardown(() => knex.destroy());
  let asked: () => void = () => undefined;
  const statusAsked = new Promise<void>((resolve) => (asked = resolve));
  let answer: (running: boolean) => void = () => undefined;
  const status = new Promise<boolean>((resolve) => (answer = resolve));
  let starts = 0;
  const embedded = {
    embeddedPaths: (dir: string) => ({ dataDir: `${dir}/postgres/data` }),
    embeddedStatus: async () => {
      asked();
      return { initialised: true, running: await status, server: null };
    },
    ensureEmbedded: async () => {
      starts += 1;
      return { url };
    },
  } as unknown as EmbeddedControl;
  const watch = watchDatabase({
    knex,
    url,
    storageDir: await scratchDir(),
    logger: silentLogger,
    embedded: async () => embedded,
  });
  // A connection the pool cannot open makes the watch look at the server.
  await t.throwsAsync(knex.raw('select 1'));
  await statusAsked;
  let closed = false;
  const closing = watch.close().then(() => (closed = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.false(closed, 'close waits while the check is under way');
  // The check learns the server is stopped (as by `ward db stop`) only after the backend began stopping.
  answer(false);
  await closing;
  t.is(starts, 0, 'the stopped server was not started again');
});

/**
 * The applier's step events, on a real database with modules written to a scratch folder: what a
 * listener hears and in what order, what the operation log already records when a process-wide
 * listener hears an event (the crash points rely on it), and the log lines. Serial: process-wide
 * listeners hear every plan this process applies.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import createKnex, { type Knex } from 'knex';
import pg from 'pg';
import { pino } from 'pino';
import { applyPlan } from '../../src/applier/apply.ts';
import { observeSteps, type StepEvent, type StepListener } from '../../src/applier/events.ts';
import { announceSteps } from '../../src/applier/listeners.ts';
import { reconcile } from '../../src/applier/reconcile.ts';
import { loadConfig } from '../../src/config.ts';
import { schedule } from '../../src/db/schedule.ts';
import type { StepNotice } from '../../src/db/step-channel.ts';
import { discover } from '../../src/manifests/discover.ts';
import { STEPS } from '../../src/planner/types.ts';
import { silentLogger, type Logger } from '../../src/logger.ts';
import { scratchDir } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';

const ALPHA_MIGRATION = `export async function up(knex) {
  await knex.schema.createTable('alpha_note', (table) => table.increments('id'));
}
export async function down(knex) {
  await knex.schema.dropTable('alpha_note');
}
`;

/** alpha (a table), gamma (a post_install hook that throws) and beta (needs gamma). */
async function modulesDir(): Promise<string> {
  const dir = await scratchDir('ward-events-');
  const write = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  };
  const manifest = (name: string, depends: string[] = []) =>
    JSON.stringify({ name, version: '1.0.0', depends });
  await write('alpha/manifest.json', manifest('alpha'));
  await write('alpha/migrations/20260101000000_alpha_note.mjs', ALPHA_MIGRATION);
  await write('gamma/manifest.json', manifest('gamma'));
  await mkdir(path.join(dir, 'gamma', 'migrations'));
  await write(
    'gamma/hooks.js',
    "export function post_install() { throw new Error('gamma refuses to start'); }\n",
  );
  await write('beta/manifest.json', manifest('beta', ['gamma']));
  await mkdir(path.join(dir, 'beta', 'migrations'));
  return dir;
}

async function setup(t: ExecutionContext) {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const config = loadConfig({
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir(),
    WARD_MODULE_PATHS: await modulesDir(),
  });
  const inventory = await discover(config);
  const scheduled = async (kind: 'install' | 'uninstall', name: string) =>
    schedule(
      knex,
      inventory,
      kind === 'install' ? { kind, name } : { kind, name, force: false, cascade: false },
      { dryRun: false },
    );
  const restart = (listeners: StepListener[] = [], logger: Logger = silentLogger) =>
    reconcile(knex, url, config, logger, listeners);
  return { url, knex, config, inventory, scheduled, restart };
}

/** An event as one line, without its handles (the transaction, the error). */
function describe(event: StepEvent): string {
  if (event.type === 'blocked') return `blocked ${event.module}: ${event.message}`;
  const at = `${event.type} ${event.operation} ${event.module}`;
  switch (event.type) {
    case 'started':
      return `${at} ${event.step} #${event.number}`;
    case 'completed':
      return `${at} ${event.step} in ${event.transaction === null ? 'no transaction' : 'its transaction'}`;
    case 'committed':
      return `${at} ${event.step}`;
    case 'failed':
      return `${at} ${event.step}: ${event.message}`;
    case 'skipped':
      return `${at}: ${event.message}`;
  }
}

test.serial(
  'a listener hears started, completed and committed for each step, then failed and skipped',
  async (t) => {
    const { knex, scheduled, restart } = await setup(t);
    await scheduled('install', 'alpha');
    await scheduled('install', 'beta');
    const events: StepEvent[] = [];
    const result = await restart([(event) => void events.push(event)]);
    const steps = ['migrate', 'seed', 'post_install', 'finalize'];
    t.deepEqual(events.map(describe), [
      ...steps.flatMap((step, index) => [
        `started install alpha ${step} #${index + 1}`,
        `completed install alpha ${step} in its transaction`,
        `committed install alpha ${step}`,
      ]),
      'started install gamma migrate #5',
      'completed install gamma migrate in its transaction',
      'committed install gamma migrate',
      'started install gamma seed #6',
      'completed install gamma seed in its transaction',
      'committed install gamma seed',
      'started install gamma post_install #7',
      'failed install gamma post_install: gamma refuses to start',
      'skipped install beta: skipped: gamma failed or was skipped in the same restart',
    ]);
    t.true(events.every((event) => event.runId === result.runId));
    const migrated = events.filter(
      (event) => event.module === 'alpha' && 'step' in event && event.step === 'migrate',
    );
    t.like(migrated[1], { detail: { applied: ['alpha/20260101000000_alpha_note'] } });
    t.like(migrated[2], { detail: { applied: ['alpha/20260101000000_alpha_note'] }, transactional: true });
    t.true((migrated[2] as { ms: number }).ms >= 0);
    const failed = events.find((event) => event.type === 'failed');
    t.is((failed as { error: Error }).error.message, 'gamma refuses to start');
    // The operation log, as it was before the applier told listeners: the same rows.
    const rows = await knex('core_module_operation_log')
      .where({ run_id: result.runId })
      .orderBy('id')
      .select('module_name', 'step', 'status', 'message');
    t.deepEqual(
      rows.map((row: { module_name: string; step: string; status: string; message: string | null }) =>
        [row.module_name, row.step, row.status, row.message ?? ''].join(' ').trim(),
      ),
      [
        ...steps.flatMap((step) => [`alpha ${step} started`, `alpha ${step} done`]),
        'gamma migrate started',
        'gamma migrate done',
        'gamma seed started',
        'gamma seed done',
        'gamma post_install started',
        'gamma post_install failed gamma refuses to start',
        'beta skip skipped skipped: gamma failed or was skipped in the same restart',
      ],
    );
  },
);

test.serial('a process-wide listener hears each event once the operation log records it', async (t) => {
  const { knex, scheduled, restart } = await setup(t);
  const seen: string[] = [];
  const doneRows = (connection: Knex, event: StepEvent & { step: string }) =>
    connection('core_module_operation_log')
      .where({ run_id: event.runId, module_name: event.module, step: event.step, status: 'done' })
      .count({ n: '*' })
      .then((rows) => Number((rows[0] as { n: string }).n));
  const stop = observeSteps(async (event) => {
    if (event.type === 'started') {
      const started = await knex('core_module_operation_log')
        .where({ run_id: event.runId, module_name: event.module, step: event.step, status: 'started' })
        .first('id');
      seen.push(`${event.step} started: ${started === undefined ? 'not ' : ''}recorded`);
    }
    if (event.type === 'completed')
      seen.push(
        `${event.step} completed: done ${await doneRows(knex, event)} outside, ` +
          `${event.transaction === null ? 'no transaction' : `${await doneRows(event.transaction, event)} inside`}`,
      );
    if (event.type === 'committed') seen.push(`${event.step} committed: done ${await doneRows(knex, event)}`);
  });
  t.teardown(stop);
  await scheduled('install', 'alpha');
  await restart();
  t.deepEqual(
    seen,
    STEPS.install.flatMap((step) => [
      `${step} started: recorded`,
      `${step} completed: done 0 outside, 1 inside`,
      `${step} committed: done 1`,
    ]),
  );
  seen.length = 0;
  await scheduled('uninstall', 'alpha');
  await restart();
  t.deepEqual(
    seen,
    STEPS.uninstall.flatMap((step) => [
      `${step} started: recorded`,
      `${step} completed: done 0 outside, ${step === 'backup' ? 'no transaction' : '1 inside'}`,
      `${step} committed: done 1`,
    ]),
    'the backup step has no transaction: its done row is written after its work',
  );
  stop();
  seen.length = 0;
  await scheduled('install', 'alpha');
  await restart();
  t.deepEqual(seen, [], 'a removed listener hears nothing');
});

test.serial('a listener that throws at completed fails the step, and its work is rolled back', async (t) => {
  const { knex, scheduled, restart } = await setup(t);
  await scheduled('install', 'alpha');
  const result = await restart([
    (event) => {
      if (event.type === 'completed' && event.step === 'migrate') throw new Error('listener says no');
    },
  ]);
  t.deepEqual(result.failed, [{ module: 'alpha', step: 'migrate', error: 'listener says no' }]);
  t.false(await knex.schema.hasTable('alpha_note'));
  t.deepEqual(
    await knex('core_module_operation_log').where({ run_id: result.runId }).orderBy('id').pluck('status'),
    ['started', 'failed'],
  );
  t.like(await knex('core_module').where({ name: 'alpha' }).first(), {
    state: 'to_install',
    error_message: 'install failed at migrate: listener says no',
  });
});

test.serial(
  'a module the planner refused is announced as blocked and logged as a skipped blocked step',
  async (t) => {
    const { knex, config, inventory } = await setup(t);
    await knex('core_module').insert({ name: 'beta', state: 'to_install' });
    const events: StepEvent[] = [];
    const runId = '00000000-0000-4000-8000-000000000000';
    const report = await applyPlan(
      {
        knex,
        inventory,
        storageDir: config.storageDir,
        logger: silentLogger,
        runId,
        listeners: [(event) => void events.push(event)],
      },
      {
        actions: [],
        unchanged: [],
        blocked: [{ module: 'beta', refusal: { code: 'blocked_by', module: 'beta', blocker: 'gamma' } }],
        inactive: [],
      },
    );
    t.deepEqual(events, [
      {
        type: 'blocked',
        runId,
        module: 'beta',
        operation: 'install',
        code: 'blocked_by',
        message: 'beta waits for gamma, which is blocked',
      },
    ]);
    t.deepEqual(report.skipped, [{ module: 'beta', because: 'beta waits for gamma, which is blocked' }]);
    t.deepEqual(
      await knex('core_module_operation_log').select(
        'run_id',
        'module_name',
        'operation',
        'step',
        'status',
        'message',
      ),
      [
        {
          run_id: runId,
          module_name: 'beta',
          operation: 'install',
          step: 'blocked',
          status: 'skipped',
          message: 'beta waits for gamma, which is blocked',
        },
      ],
    );
    t.like(await knex('core_module').where({ name: 'beta' }).first(), {
      state: 'to_install',
      error_message: 'not applied: beta waits for gamma, which is blocked',
    });
  },
);

/** A logger whose JSON lines land in `lines`. */
function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { logger, lines };
}

/** The operation-log rows of a run, one line each. */
async function logLines(knex: Knex, runId: string): Promise<string[]> {
  const rows = (await knex('core_module_operation_log')
    .where({ run_id: runId })
    .orderBy('id')
    .select('module_name', 'operation', 'step', 'status', 'message')) as Array<Record<string, string | null>>;
  return rows.map((row) =>
    [row.operation, row.module_name, row.step, row.status, row.message ?? ''].join(' ').trim(),
  );
}

test.serial(
  'a listener that throws at started or committed is logged and ignored: the plan and its log are complete',
  async (t) => {
    const { knex, scheduled, restart } = await setup(t);
    await scheduled('install', 'alpha');
    await scheduled('install', 'beta');
    const { logger, lines } = capturingLogger();
    const failing: StepListener = (event) => {
      if (event.type === 'started' || event.type === 'committed') throw new Error(`no ${event.type}`);
    };
    const stop = observeSteps(failing);
    t.teardown(stop);
    const result = await restart([failing], logger);
    t.deepEqual(
      result.applied.map((applied) => applied.module),
      ['alpha'],
    );
    t.deepEqual(result.failed, [{ module: 'gamma', step: 'post_install', error: 'gamma refuses to start' }]);
    t.deepEqual(await logLines(knex, result.runId), [
      ...STEPS.install.flatMap((step) => [`install alpha ${step} started`, `install alpha ${step} done`]),
      'install gamma migrate started',
      'install gamma migrate done',
      'install gamma seed started',
      'install gamma seed done',
      'install gamma post_install started',
      'install gamma post_install failed gamma refuses to start',
      'install beta skip skipped skipped: gamma failed or was skipped in the same restart',
    ]);
    t.like(await knex('core_module').where({ name: 'alpha' }).first(), {
      state: 'installed',
      error_message: null,
    });
    const warnings = lines.filter((line) => line.level === 40 && line.event !== undefined);
    // 7 steps started and 6 committed, each heard by the two failing listeners.
    t.is(warnings.length, (7 + 6) * 2);
    t.like(warnings[0], {
      msg: 'a step listener failed at started; ignored',
      module: 'alpha',
      err: { message: 'no started' },
    });
  },
);

test.serial(
  'a non-transactional step whose done row cannot be written fails, and the rest of the plan runs',
  async (t) => {
    const { knex, scheduled, restart } = await setup(t);
    await scheduled('install', 'alpha');
    await restart();
    await knex.raw(`create function refuse_backup_done() returns trigger language plpgsql as $$
      begin
        if new.step = 'backup' and new.status = 'done' then raise exception 'the log is full'; end if;
        return new;
      end $$`);
    await knex.raw(`create trigger refuse_backup_done before insert on core_module_operation_log
      for each row execute function refuse_backup_done()`);
    await scheduled('uninstall', 'alpha');
    await scheduled('install', 'gamma');
    const events: StepEvent[] = [];
    const result = await restart([(event) => void events.push(event)]);
    // knex puts the statement before PostgreSQL's message.
    const full = / - the log is full$/;
    t.deepEqual(
      result.failed.map((failed) => [failed.module, failed.step]),
      [
        ['alpha', 'backup'],
        ['gamma', 'post_install'],
      ],
    );
    t.regex(result.failed[0]?.error ?? '', full);
    const logged = await logLines(knex, result.runId);
    t.regex(logged[3] ?? '', /^uninstall alpha backup failed insert into .* - the log is full$/);
    t.deepEqual(logged, [
      'uninstall alpha check started',
      'uninstall alpha check done',
      'uninstall alpha backup started',
      logged[3] ?? '',
      'install gamma migrate started',
      'install gamma migrate done',
      'install gamma seed started',
      'install gamma seed done',
      'install gamma post_install started',
      'install gamma post_install failed gamma refuses to start',
    ]);
    const alpha = (await knex('core_module').where({ name: 'alpha' }).first()) as {
      state: string;
      error_message: string;
    };
    t.is(alpha.state, 'to_uninstall');
    t.regex(alpha.error_message, /^uninstall failed at backup: insert into .* - the log is full$/);
    t.true(await knex.schema.hasTable('alpha_note'), 'nothing of alpha was removed');
    t.false(
      events.some((event) => event.type === 'committed' && event.step === 'backup'),
      'no listener heard the backup committed',
    );
  },
);

test.serial('announceSteps sends each operation-log row over NOTIFY once it is durable', async (t) => {
  const { url, knex, scheduled, restart } = await setup(t);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  const notices: string[] = [];
  client.on('notification', (message) => {
    const notice = JSON.parse(message.payload ?? '') as StepNotice;
    notices.push(
      [notice.operation, notice.module, notice.step, notice.status, notice.message ?? ''].join(' ').trim(),
    );
  });
  await client.query('LISTEN ward_steps');
  await scheduled('install', 'alpha');
  // beta needs gamma, which is neither installed nor pending: the planner blocks it.
  await knex('core_module').insert({ name: 'beta', state: 'to_install' });
  const result = await restart([announceSteps(knex)]);
  // PostgreSQL hands a listening session the notices committed before a query ahead of its answer.
  await client.query('select 1');
  const logged = await logLines(knex, result.runId);
  t.deepEqual(notices, logged);
  t.is(logged.length, 1 + STEPS.install.length * 2);
  t.regex(logged[0] ?? '', /^install beta blocked skipped \S/);
});

test.serial('an announcer whose NOTIFY fails fails no step', async (t) => {
  const { url, scheduled, restart } = await setup(t);
  const closed = createKnex({ client: 'pg', connection: url });
  await closed.destroy();
  await scheduled('install', 'alpha');
  const { logger, lines } = capturingLogger();
  const result = await restart([announceSteps(closed)], logger);
  t.deepEqual(result.failed, []);
  t.deepEqual(result.applied, [{ module: 'alpha', kind: 'install' }]);
  t.is(
    lines.filter((line) => line.msg === 'a step listener failed at committed; ignored').length,
    STEPS.install.length,
  );
});

test.serial('the logger writes one line per step done, failed, skipped or blocked', async (t) => {
  const { scheduled, restart } = await setup(t);
  await scheduled('install', 'alpha');
  await scheduled('install', 'beta');
  const { logger, lines } = capturingLogger();
  await restart([], logger);
  const steps = lines.filter((line) => line.module !== undefined);
  t.deepEqual(
    steps.map((line) => [line.level, line.msg, line.module, line.operation, line.step]),
    [
      [30, 'install alpha: migrate done', 'alpha', 'install', 'migrate'],
      [30, 'install alpha: seed done', 'alpha', 'install', 'seed'],
      [30, 'install alpha: post_install done', 'alpha', 'install', 'post_install'],
      [30, 'install alpha: finalize done', 'alpha', 'install', 'finalize'],
      [30, 'install gamma: migrate done', 'gamma', 'install', 'migrate'],
      [30, 'install gamma: seed done', 'gamma', 'install', 'seed'],
      [50, 'post_install failed', 'gamma', 'install', 'post_install'],
      [40, 'skipped: gamma failed or was skipped in the same restart', 'beta', 'install', undefined],
    ],
  );
  t.true(steps.slice(0, 7).every((line) => typeof line.ms === 'number'));
  t.like(steps[6], { err: { message: 'gamma refuses to start' } });
});

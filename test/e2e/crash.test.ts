/**
 * Crash injection: the backend kills itself (SIGKILL) at step N of a restart, at the start of the
 * step, in its middle (work done, not yet recorded) or at its end; the next restart must finish
 * the job, leaving the database exactly as an uninterrupted restart does, with no duplicate seed
 * and a whole backup.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { FIXTURES, scratchDir, ward } from '../helpers/cli.ts';
import { crashAtStep } from '../helpers/crash.ts';
import { templateDatabase, testDatabase } from '../helpers/database.ts';
import { restart, serveUntilExit } from '../helpers/serve.ts';
import { moduleState } from '../helpers/state.ts';

const V1 = path.join(FIXTURES, 'modules', 'lifecycle-v1');
const V2 = path.join(FIXTURES, 'modules', 'lifecycle-v2');
const POINTS = ['start', 'middle', 'end'] as const;

interface Scenario {
  name: string;
  /** Module paths while the scenario's restart runs. */
  modulePaths: string;
  /** Steps the restart runs, in order (for titles; the count drives the loop). */
  steps: string[];
  /** Brings a fresh database to just before the restart under test, ending with `to_*` rows. */
  prepare: (env: Record<string, string>) => Promise<void>;
}

async function must(run: Promise<{ code: number | null; stderr: string }>) {
  const result = await run;
  if (result.code !== 0) throw new Error(result.stderr);
}

const scenarios: Scenario[] = [
  {
    name: 'install',
    modulePaths: V1,
    steps: ['lab migrate', 'lab seed', 'lab post_install', 'lab finalize'],
    async prepare(env) {
      await must(ward(['modules', 'install', 'patients'], env));
      await restart(env);
      await must(ward(['modules', 'install', 'lab'], env));
    },
  },
  {
    name: 'upgrade',
    modulePaths: V2,
    steps: [
      'lab_units migrate',
      'lab_units seed',
      'lab_units post_install',
      'lab_units finalize',
      'lab migrate',
      'lab seed',
      'lab post_upgrade',
      'lab finalize',
    ],
    async prepare(env) {
      await must(ward(['modules', 'install', 'lab'], env));
      await restart(env);
      await must(ward(['modules', 'upgrade', 'lab'], { ...env, WARD_MODULE_PATHS: V2 }));
    },
  },
  {
    name: 'uninstall',
    modulePaths: V1,
    steps: ['lab check', 'lab backup', 'lab uninstall_hook', 'lab purge', 'lab downgrade', 'lab finalize'],
    async prepare(env) {
      await must(ward(['modules', 'install', 'lab'], env));
      await restart(env);
      await must(ward(['modules', 'uninstall', 'lab'], env));
    },
  },
];

const templates = new Map<string, Promise<string>>();
function templateFor(scenario: Scenario): Promise<string> {
  let template = templates.get(scenario.name);
  if (template === undefined) {
    template = templateDatabase(async (url) => {
      const env = { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir(), WARD_MODULE_PATHS: V1 };
      await restart(env);
      await scenario.prepare(env);
    });
    templates.set(scenario.name, template);
  }
  return template;
}

async function run(t: ExecutionContext, scenario: Scenario, crash?: string) {
  const { url, knex } = await testDatabase(t, { template: await templateFor(scenario) });
  const storage = await scratchDir('ward-crash-');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, WARD_MODULE_PATHS: scenario.modulePaths };
  if (crash !== undefined) {
    const died = await serveUntilExit({ ...env, ...crashAtStep(crash) });
    t.is(died.signal, 'SIGKILL', died.output);
  }
  await restart(env);
  return { state: await moduleState(knex), backups: await backupsIn(storage) };
}

/** The INSERT statements of every backup written, without their headers (which carry the time). */
async function backupsIn(storage: string): Promise<string[]> {
  const dir = path.join(storage, 'backups');
  const files = (await readdir(dir).catch(() => [] as string[])).sort();
  return Promise.all(
    files.map(async (file) => {
      assertBackupName(file);
      const text = await readFile(path.join(dir, file), 'utf8');
      return text
        .split('\n')
        .filter((line) => !line.startsWith('--'))
        .join('\n');
    }),
  );
}

function assertBackupName(file: string): void {
  if (!/^module_lab_\d{8}T\d{6}Z\.sql$/.test(file)) throw new Error(`unexpected file in backups: ${file}`);
}

for (const scenario of scenarios) {
  const reference = new Map<string, ReturnType<typeof run>>();
  scenario.steps.forEach((step, index) => {
    for (const point of POINTS) {
      test(`${scenario.name}: a crash at the ${point} of step ${index + 1} (${step}) is finished by the next restart`, async (t) => {
        let expected = reference.get('only');
        if (expected === undefined) {
          expected = run(t, scenario);
          reference.set('only', expected);
        }
        const actual = await run(t, scenario, `${index + 1}:${point}`);
        const wanted = await expected;
        t.deepEqual(actual.state, wanted.state);
        if (scenario.name === 'uninstall') {
          t.is(wanted.backups.length, 1);
          t.true(actual.backups.length >= 1);
          for (const backup of actual.backups)
            t.is(backup, wanted.backups[0] as string, 'every backup written is whole');
        }
      });
    }
  });
}

test('a crash that leaves knex’s own migration lock set does not block the next restart', async (t) => {
  const scenario = scenarios[0] as Scenario;
  const { url, knex } = await testDatabase(t, { template: await templateFor(scenario) });
  await knex('knex_migrations_lock').update({ is_locked: 1 });
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir(), WARD_MODULE_PATHS: V1 };
  await restart(env);
  t.like(await knex('core_module').where({ name: 'lab' }).first('state'), { state: 'installed' });
  t.deepEqual(await knex('knex_migrations_lock').pluck('is_locked'), [0]);
});

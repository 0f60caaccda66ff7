/**
 * What each step does, given the module and the action. Steps are idempotent: each checks what is
 * already true before acting (knex skips applied migrations, seeds upsert, purge and finalize
 * touch only what is still there), so running one again after a crash does no harm.
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { recordApplied } from '../../db/modules.ts';
import type { Logger } from '../../logger.ts';
import type { Action, DiskModule, StepName } from '../../planner/types.ts';
import { backupFileName, backupTables } from '../../backup/backup.ts';
import { backupDir, backupFilePattern } from '../../backup/backup-format.ts';
import type { HookContext, Hooks } from '../../sdk/index.ts';
import type { ModuleApis } from '../../sdk/module-apis.ts';
import { actingIn, SYSTEM_ACTOR } from '../../db/acting.ts';
import { checkUninstall } from './check.ts';
import { loadHooks } from './hooks.ts';
import { downgradeToBase, migrateUp } from './migrate.ts';
import { applySeeds, purgeExternalIds } from '../seeds/seed.ts';

export interface StepEnv {
  module: DiskModule;
  action: Action;
  /** For an uninstall: the uninstalls after it in the same plan, in order (its `check` proves them too). */
  laterUninstalls: readonly DiskModule[];
  storageDir: string;
  logger: Logger;
  /** Where a hook's SDK view finds the APIs of the modules it depends on. */
  apis: ModuleApis;
}

/** Steps that do not run inside a database transaction (they write files on their own connection). */
export const NON_TRANSACTIONAL: ReadonlySet<StepName> = new Set(['backup']);

/**
 * Runs one step; `knex` is the step's transaction (opened on behalf of `system`, so whatever a
 * migration, a seed or a hook writes is attributed), or the pool for non-transactional steps.
 */
export async function runStep(step: StepName, knex: Knex, env: StepEnv): Promise<Record<string, unknown>> {
  const { module, action } = env;
  switch (step) {
    case 'check':
      return checkUninstall(knex, [module, ...env.laterUninstalls]);
    case 'migrate':
      return { applied: await migrateUp(knex, module) };
    case 'seed':
      return { ...(await applySeeds(knex, module)) };
    case 'post_install':
      return runHook(knex, env, 'post_install');
    case 'post_upgrade':
      return runHook(knex, env, 'post_upgrade');
    case 'uninstall_hook':
      return runHook(knex, env, 'uninstall');
    case 'backup':
      return backup(knex, env);
    case 'purge':
      return { ...(await purgeExternalIds(knex, module.name)) };
    case 'downgrade':
      return { undone: await downgradeToBase(knex, module) };
    case 'finalize':
      return { changed: await finalize(knex, action, module) };
  }
}

async function runHook(knex: Knex, env: StepEnv, name: keyof Hooks): Promise<Record<string, unknown>> {
  const hook = (await loadHooks(env.module))[name];
  if (hook === undefined) return { called: false };
  const ctx: HookContext = {
    knex,
    acting: actingIn(knex as Knex.Transaction, SYSTEM_ACTOR),
    logger: env.logger.child({ module: env.module.name, hook: name }),
    manifest: env.module.manifest,
    storageDir: env.storageDir,
    sdk: await env.apis.sdkFor(env.module),
  };
  // post_upgrade(ctx, fromVersion): passes the previously installed version.
  await hook(ctx, env.action.fromVersion);
  return { called: true };
}

/** step 1: every table the module owns, data only, to storage/backups. */
async function backup(knex: Knex, env: StepEnv): Promise<Record<string, unknown>> {
  const tables = (await knex('core_module_table')
    .where({ module_name: env.module.name })
    .orderBy('table_name')
    .pluck('table_name')) as string[];
  const dir = backupDir(env.storageDir);
  await removeStalePartials(dir, env.module.name);
  const file = path.join(dir, backupFileName(env.module.name, new Date()));
  const result = await backupTables(knex, tables, file, { module: env.module.name });
  return { file: result.file, rows: result.rows, tables: result.tables };
}

/**
 * A backup cut short by a crash leaves `<file>.partial`, holding patient data nobody will use: the
 * step runs again and writes a new, whole file. Only this module's partials are touched.
 */
async function removeStalePartials(dir: string, module: string): Promise<void> {
  const pattern = backupFilePattern(module);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names)
    if (name.endsWith('.partial') && pattern.test(name.slice(0, -'.partial'.length)))
      await rm(path.join(dir, name), { force: true });
}

function finalize(knex: Knex, action: Action, module: DiskModule): Promise<boolean> {
  if (action.kind === 'uninstall')
    return recordApplied(knex, module.name, 'to_uninstall', { state: 'uninstalled' });
  return recordApplied(knex, module.name, action.kind === 'install' ? 'to_install' : 'to_upgrade', {
    state: 'installed',
    version: module.version,
    fresh: action.kind === 'install',
    requires: module.requires,
  });
}

/**
 * Migration branches on one knex migration table. Every branch's rows are named `<branch>/<file>`
 * so branches never collide, and list validation is off because each source only knows its own
 * branch: with it on, knex calls the table "corrupt" as soon as a second branch has rows.
 */
import type { Knex } from 'knex';
import { selectRows, type Queryable } from './pg-client.ts';

export const MIGRATION_TABLE = 'knex_migrations';

const UNDEFINED_TABLE = '42P01';

export interface BranchMigration {
  /** `<branch>/<file name without extension>` */
  name: string;
  load: () => Promise<Knex.Migration>;
}

export function branchSource(migrations: BranchMigration[]): Knex.MigrationSource<BranchMigration> {
  return {
    getMigrations: async () => migrations,
    getMigrationName: (migration) => migration.name,
    getMigration: (migration) => migration.load(),
  };
}

export function migratorConfig(migrations: BranchMigration[]): Knex.MigratorConfig {
  return {
    tableName: MIGRATION_TABLE,
    migrationSource: branchSource(migrations),
    disableMigrationsListValidation: true,
  };
}

const CORE_MIGRATIONS: BranchMigration[] = [
  {
    name: 'core/20260101000000_core_schema',
    load: () => import('./migrations/core/20260101000000_core_schema.ts'),
  },
  {
    name: 'core/20260102000000_module_tables',
    load: () => import('./migrations/core/20260102000000_module_tables.ts'),
  },
  {
    name: 'core/20261127000000_module_requires',
    load: () => import('./migrations/core/20261127000000_module_requires.ts'),
  },
  {
    name: 'core/20261127000100_sign_in_throttle',
    load: () => import('./migrations/core/20261127000100_sign_in_throttle.ts'),
  },
  {
    name: 'core/20261127000200_audit',
    load: () => import('./migrations/core/20261127000200_audit.ts'),
  },
  {
    name: 'core/20261127002100_audit_patient_ids',
    load: () => import('./migrations/core/20261127002100_audit_patient_ids.ts'),
  },
  {
    name: 'core/20261127002200_audit_append',
    load: () => import('./migrations/core/20261127002200_audit_append.ts'),
  },
  {
    name: 'core/20261128000000_audit_patient_ids_concurrently',
    load: () => import('./migrations/core/20261128000000_audit_patient_ids_concurrently.ts'),
  },
  {
    name: 'core/20261128000100_audit_append_texts',
    load: () => import('./migrations/core/20261128000100_audit_append_texts.ts'),
  },
  {
    name: 'core/20261128000200_audit_read_indexes',
    load: () => import('./migrations/core/20261128000200_audit_read_indexes.ts'),
  },
];

/**
 * Whether the core branch is at head, in one round trip, with plain SQL (a start checks it before
 * knex is loaded). That is every start-up but the first
 * after an upgrade, and knex's migrator would spend several round trips (and load its own code) to
 * find nothing to do. Knex's own lock table is knex's business: Ward's migrations are serialised
 * by its advisory lock instead (see withKnexMigrator).
 */
export async function coreAtHead(db: Queryable): Promise<boolean> {
  try {
    const [{ applied }] = (await selectRows(
      db,
      `select array(select name from ${MIGRATION_TABLE} where starts_with(name, 'core/')) as applied`,
    )) as [{ applied: string[] }];
    return CORE_MIGRATIONS.every(({ name }) => applied.includes(name));
  } catch (error) {
    // A database Ward has never started in has neither table yet: the migrator creates them.
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return false;
    throw error;
  }
}

/** The name of the error knex's migrator throws when it finds its own lock row set. */
const KNEX_LOCKED = 'MigrationLocked';

/**
 * Runs knex's migrator (`run`), once more after freeing knex's lock through knex's own API if the
 * migrator says it is locked. Ward serialises its migrations with its reconcile advisory lock
 * (LOCK_KEYS.reconcile), which every caller holds and PostgreSQL releases with a session that
 * crashed, so a lock row knex finds set was left by a crash: no other migrator can be running.
 * Ward never reads knex's lock table; knex says when it is locked.
 */
export async function withKnexMigrator<T>(knex: Knex, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if ((error as Error | undefined)?.name !== KNEX_LOCKED) throw error;
    await knex.migrate.forceFreeMigrationsLock({ tableName: MIGRATION_TABLE });
    return run();
  }
}

/** Whether a migration asks to run outside a transaction (knex's `config.transaction = false`). */
const outsideTransaction = (migration: Knex.Migration): boolean =>
  (migration as { config?: { transaction?: boolean } }).config?.transaction === false;

/**
 * Where each batch of `flags` (one per migration: runs outside a transaction) ends, as prefix
 * lengths: a migration outside a transaction is a batch of its own, and the ones between share
 * one. knex runs a batch holding such a migration without a transaction around the batch, each
 * other migration then committing before knex records it: a crash in between would run it again.
 */
export function batchEnds(flags: readonly boolean[]): number[] {
  const ends: number[] = [];
  flags.forEach((outside, index) => {
    if (outside) ends.push(index, index + 1);
  });
  ends.push(flags.length);
  return ends.filter((end, index) => end > 0 && end !== ends[index - 1]);
}

/**
 * Brings the core branch to head, batch by batch (see batchEnds). Returns the names it applied
 * (empty when already at head). The caller holds the reconcile advisory lock (see
 * withKnexMigrator).
 */
export async function migrateCore(knex: Knex): Promise<string[]> {
  const flags = await Promise.all(
    CORE_MIGRATIONS.map(async (migration) => outsideTransaction(await migration.load())),
  );
  const applied: string[] = [];
  for (const end of batchEnds(flags)) {
    const [, names] = (await withKnexMigrator(knex, () =>
      knex.migrate.latest(migratorConfig(CORE_MIGRATIONS.slice(0, end))),
    )) as [number, string[]];
    applied.push(...names);
  }
  return applied;
}

/** The newest applied migration of a branch, or null: `modules info`'s "applied revision". */
export async function appliedRevision(knex: Knex, branch: string): Promise<string | null> {
  if (!(await knex.schema.hasTable(MIGRATION_TABLE))) return null;
  const row = (await knex(MIGRATION_TABLE)
    // starts_with, not LIKE: '_' in a module name is a LIKE wildcard.
    .whereRaw('starts_with(name, ?)', [`${branch}/`])
    .orderBy('id', 'desc')
    .first('name')) as { name: string } | undefined;
  return row === undefined ? null : row.name.slice(branch.length + 1);
}

/**
 * Migration branches on one knex migration table. Every branch's rows are named `<branch>/<file>`
 * so branches never collide, and list validation is off because each source only knows its own
 * branch: with it on, knex calls the table "corrupt" as soon as a second branch has rows.
 */
import type { Knex } from 'knex';

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
    name: 'core/20261127000000_sign_in_throttle',
    load: () => import('./migrations/core/20261127000000_sign_in_throttle.ts'),
  },
];

/**
 * Whether the core branch is at head and knex's lock row is free, in one round trip. That is every
 * start-up but the first after an upgrade or a crash, and knex's migrator would spend several round
 * trips (and load its own code) to find nothing to do.
 */
export async function coreAtHead(knex: Knex): Promise<boolean> {
  try {
    const { rows } = (await knex.raw(
      `select exists (select 1 from ${MIGRATION_TABLE}_lock where is_locked <> 0) as locked,
              array(select name from ${MIGRATION_TABLE} where starts_with(name, 'core/')) as applied`,
    )) as { rows: [{ locked: boolean; applied: string[] }] };
    const [{ locked, applied }] = rows;
    return !locked && CORE_MIGRATIONS.every(({ name }) => applied.includes(name));
  } catch (error) {
    // A database Ward has never started in has neither table yet: the migrator creates them.
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return false;
    throw error;
  }
}

/** Brings the core branch to head. Returns the names it applied (empty when already at head). */
export async function migrateCore(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest(migratorConfig(CORE_MIGRATIONS))) as [number, string[]];
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

/**
 * Migration branches on one knex migration table. Every branch's rows are named `<branch>/<file>`
 * so branches never collide, and list validation is off because each source only knows its own
 * branch: with it on, knex calls the table "corrupt" as soon as a second branch has rows.
 */
import type { Knex } from 'knex';

export const MIGRATION_TABLE = 'knex_migrations';

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
];

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

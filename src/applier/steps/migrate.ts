/**
 * A module's migration branch: the knex migrations in its own `migrations/` directory, named
 * `<module>/<file>` on the one knex migration table. Design around knex's known traps:
 * - files with the same name in two modules never collide, thanks to the branch prefix;
 * - list validation is off (see src/db/migrate.ts), or another branch's rows would make knex call
 *   the table "corrupt";
 * - downgrade uses `rollback(all)` with this branch's source only, which undoes exactly this
 *   branch's completed migrations, newest first; plain `rollback` would pick the last batch across
 *   every branch;
 * - knex's own lock row, left set by a crash, is freed when knex says it is locked, under the
 *   reconcile lock (see withKnexMigrator in src/db/migrate.ts).
 * Each migration is wrapped so that the tables it creates are recorded as the module's own in
 * `core_module_table` (and the tables it drops forgotten) in the migration's own transaction.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { migratorConfig, MIGRATION_TABLE, withKnexMigrator, type BranchMigration } from '../../db/migrate.ts';
import { WardError } from '../../errors/ward-error.ts';
import type { DiskModule } from '../../planner/types.ts';

const MIGRATION_FILE = /^[^.].*(?<!\.d)\.(ts|js|mjs|cjs)$/;

export async function branchMigrations(module: Pick<DiskModule, 'name' | 'dir'>): Promise<BranchMigration[]> {
  const dir = path.join(module.dir, 'migrations');
  const files = (await readdir(dir).catch(() => [] as string[]))
    .filter((file) => MIGRATION_FILE.test(file))
    .sort();
  const names = new Map<string, string>();
  for (const file of files) {
    const name = `${module.name}/${file.replace(/\.(ts|js|mjs|cjs)$/, '')}`;
    const other = names.get(name);
    if (other !== undefined)
      throw new WardError(
        'migration_name_clash',
        `${module.name} has two migrations named ${name}: ${other} and ${file}`,
        'keep one file per migration name in the migrations/ directory',
      );
    names.set(name, file);
  }
  return [...names].map(([name, file]) => ({
    name,
    load: async () =>
      recordingTables(
        module.name,
        name,
        (await import(pathToFileURL(path.join(dir, file)).href)) as Knex.Migration,
      ),
  }));
}

export async function migrateUp(knex: Knex, module: Pick<DiskModule, 'name' | 'dir'>): Promise<string[]> {
  const config = migratorConfig(await branchMigrations(module));
  const [, applied] = (await withKnexMigrator(knex, () => knex.migrate.latest(config))) as [number, string[]];
  return applied;
}

/** Undoes every applied migration of the branch, newest first. Refuses if one is no longer on disk. */
export async function downgradeToBase(
  knex: Knex,
  module: Pick<DiskModule, 'name' | 'dir'>,
): Promise<string[]> {
  const migrations = await branchMigrations(module);
  const [, undone] = (await withKnexMigrator(knex, () =>
    knex.migrate.rollback(migratorConfig(migrations), true),
  )) as [number, string[]];
  const left = (await knex(MIGRATION_TABLE)
    .whereRaw('starts_with(name, ?)', [`${module.name}/`])
    .orderBy('id')
    .pluck('name')) as string[];
  if (left.length > 0)
    throw new WardError(
      'downgrade_incomplete',
      `${module.name}'s migration branch cannot reach base: ${left.join(', ')} ${left.length === 1 ? 'is' : 'are'} applied but no longer on disk`,
      `restore the missing migration files in ${path.join(module.dir, 'migrations')}, then restart`,
    );
  return undone;
}

async function tablesIn(knex: Knex): Promise<Set<string>> {
  const rows = (await knex('pg_catalog.pg_tables')
    .whereRaw('schemaname = current_schema()')
    .pluck('tablename')) as string[];
  return new Set(rows);
}

function recordingTables(module: string, migrationName: string, migration: Knex.Migration): Knex.Migration {
  const wrap =
    (run: (knex: Knex) => PromiseLike<unknown>) =>
    async (knex: Knex): Promise<void> => {
      const before = await tablesIn(knex);
      await run(knex);
      const after = await tablesIn(knex);
      const created = [...after].filter((table) => !before.has(table));
      const dropped = [...before].filter((table) => !after.has(table));
      if (created.length > 0)
        await knex('core_module_table')
          .insert(
            created.map((table) => ({ module_name: module, table_name: table, migration: migrationName })),
          )
          .onConflict('table_name')
          .ignore();
      if (dropped.length > 0) await knex('core_module_table').whereIn('table_name', dropped).del();
    };
  return {
    ...migration,
    up: wrap(migration.up),
    ...(migration.down === undefined ? {} : { down: wrap(migration.down) }),
  };
}

import type { Knex } from 'knex';
import type { ModuleState } from '../../src/planner/types.ts';

/** Puts module rows in place directly, standing in for installs the controller would have applied. */
export async function setRows(
  knex: Knex,
  rows: Array<{ name: string; state: ModuleState; version?: string | null; error_message?: string | null }>,
): Promise<void> {
  for (const row of rows)
    await knex('core_module')
      .insert({ version: null, error_message: null, ...row })
      .onConflict('name')
      .merge();
}

/** Everything a scheduling command may write, to prove a refused command wrote nothing. */
export async function snapshot(knex: Knex): Promise<unknown> {
  const [modules, log, external] = await Promise.all([
    knex('core_module').orderBy('name'),
    knex('core_module_operation_log').orderBy('id'),
    knex('core_external_id').orderBy('id'),
  ]);
  return { modules, log, external };
}

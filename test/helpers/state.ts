import type { Knex } from 'knex';

type Row = Record<string, unknown>;

/**
 * Everything a module action leaves behind, without what legitimately differs between two runs
 * that did the same work: timestamps, log ids and run ids, and the values of serial ids. Sequences
 * are not transactional, so a step rolled back by a crash still consumes ids; ids are therefore
 * renumbered densely in id order, and foreign keys and `core_external_id.record_id` follow.
 */
export async function moduleState(knex: Knex): Promise<Record<string, unknown>> {
  const tables = (await knex('pg_catalog.pg_tables')
    .whereRaw('schemaname = current_schema()')
    .andWhereNot('tablename', 'like', 'core\\_%')
    .andWhereNot('tablename', 'like', 'knex\\_%')
    .orderBy('tablename')
    .pluck('tablename')) as string[];
  const rows = new Map<string, Row[]>();
  for (const table of tables) rows.set(table, (await knex(table).select()) as Row[]);
  const renumber = new Map<string, Map<string, number>>();
  for (const [table, tableRows] of rows) {
    const ids = tableRows
      .map((row) => row.id)
      .filter((id) => typeof id === 'number')
      .sort((a, b) => (a as number) - (b as number));
    renumber.set(table, new Map(ids.map((id, rank) => [String(id), rank + 1])));
  }
  const mapped = (table: string, id: unknown) =>
    id === null || id === undefined ? id : (renumber.get(table)?.get(String(id)) ?? `unknown ${String(id)}`);
  const foreignKeys = await foreignKeysTo(knex);
  const contents: Record<string, string[]> = {};
  for (const [table, tableRows] of rows)
    contents[table] = tableRows
      .map((row) => {
        const copy: Row = { ...row };
        if ('id' in copy) copy.id = mapped(table, copy.id);
        for (const fk of foreignKeys.filter((key) => key.table === table))
          copy[fk.column] = mapped(fk.references, copy[fk.column]);
        return JSON.stringify(copy);
      })
      .sort();
  const externalIds = (
    (await knex('core_external_id')
      .orderBy(['module_name', 'xml_id'])
      .select('module_name', 'xml_id', 'table_name', 'record_id', 'noupdate')) as Array<
      Row & { table_name: string }
    >
  ).map((row) => ({ ...row, record_id: mapped(row.table_name, row.record_id) }));
  return {
    modules: await knex('core_module').orderBy('name').select('name', 'state', 'version', 'error_message'),
    externalIds,
    ownedTables: await knex('core_module_table').orderBy('table_name').select('module_name', 'table_name'),
    migrations: await knex('knex_migrations').orderBy('name').pluck('name'),
    knexLock: await knex('knex_migrations_lock').pluck('is_locked'),
    stepsDone: (
      (await knex('core_module_operation_log')
        .where({ status: 'done' })
        .whereNot({ step: 'schedule' })
        .select('module_name', 'operation', 'step')) as Array<{
        module_name: string;
        operation: string;
        step: string;
      }>
    )
      .map((r) => `${r.module_name} ${r.operation} ${r.step}`)
      .sort(),
    contents,
  };
}

async function foreignKeysTo(
  knex: Knex,
): Promise<Array<{ table: string; column: string; references: string }>> {
  const result = await knex.raw(`
    select c.conrelid::regclass::text as "table", a.attname as "column", c.confrelid::regclass::text as "references"
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
     where c.contype = 'f' and array_length(c.conkey, 1) = 1`);
  return result.rows as Array<{ table: string; column: string; references: string }>;
}

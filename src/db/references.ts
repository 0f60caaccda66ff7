/**
 * Foreign keys into the tables modules own, for the planner: which constraint on which table
 * points into which module's table, and which module (if any) owns the referencing table. Read
 * from `pg_constraint`, so keys added by hand count as much as those a migration declared.
 */
import { selectRows, type Queryable } from './pg-client.ts';
import type { TableReference } from '../planner/types.ts';

/**
 * Module tables live on the search path, where migrations create them, and `core_module_table`
 * names them unqualified; a referencing table elsewhere is named as `regclass` prints it and is
 * owned by no module. Keys within one module are left out: its own downgrade drops both ends.
 */
const REFERENCES_SQL = `
  select c.conname as "constraint",
         c.conrelid::regclass::text as "fromTable",
         source.module_name as "fromModule",
         target.table_name as "toTable",
         target.module_name as "toModule"
    from pg_constraint c
    join pg_class t on t.oid = c.confrelid and t.relnamespace = current_schema()::regnamespace
    join core_module_table target on target.table_name = t.relname
    join pg_class f on f.oid = c.conrelid
    left join core_module_table source
      on source.table_name = f.relname and f.relnamespace = current_schema()::regnamespace
   where c.contype = 'f'
     and source.module_name is distinct from target.module_name
   order by 2, 1`;

export async function readReferences(db: Queryable): Promise<TableReference[]> {
  return selectRows<TableReference>(db, REFERENCES_SQL);
}

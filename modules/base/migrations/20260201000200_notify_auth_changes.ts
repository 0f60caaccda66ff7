import type { Knex } from 'knex';

/**
 * Every running backend caches who a credential belongs to; these triggers tell them, through
 * NOTIFY on channel `ward_auth`, whenever that can change, whoever changes it (the CLI, another
 * replica, plain SQL). The payload is `user:<id>` (forget that user's credentials) or `*` (forget
 * everything). Writes of last_seen_at and last_used_at alone notify nobody: they change no access.
 */
const FUNCTION = `
create function base_notify_auth_change() returns trigger language plpgsql as $$
begin
  if tg_level = 'STATEMENT' or tg_nargs = 0 then
    perform pg_notify('ward_auth', '*');
    return null;
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    perform pg_notify('ward_auth', 'user:' || (to_jsonb(old) ->> tg_argv[0]));
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    perform pg_notify('ward_auth', 'user:' || (to_jsonb(new) ->> tg_argv[0]));
  end if;
  return null;
end
$$`;

/** [table, events, the column naming the user (none: forget everything)] */
const TRIGGERS: Array<[string, string, string | null]> = [
  ['base_user', 'update or delete', 'id'],
  ['base_role', 'update or delete', null],
  ['base_user_role', 'insert or update or delete', 'user_id'],
  ['base_session', 'update of id_hash, user_id, csrf_secret, expires_at or delete', 'user_id'],
  ['base_api_token', 'update of token_hash, user_id, role_id, expires_at, revoked_at or delete', 'user_id'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(FUNCTION);
  for (const [table, events, column] of TRIGGERS) {
    const argument = column === null ? '' : `'${column}'`;
    await knex.raw(
      `create trigger ${table}_notify after ${events} on ${table}
         for each row execute function base_notify_auth_change(${argument})`,
    );
    await knex.raw(
      `create trigger ${table}_notify_truncate after truncate on ${table}
         for each statement execute function base_notify_auth_change()`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of TRIGGERS) {
    await knex.raw(`drop trigger if exists ${table}_notify on ${table}`);
    await knex.raw(`drop trigger if exists ${table}_notify_truncate on ${table}`);
  }
  await knex.raw('drop function if exists base_notify_auth_change()');
}

import type { Knex } from 'knex';

/**
 * Sessions and API tokens hold only the SHA-256 of their secret (32 bytes). A token scoped to a role
 * is deleted with that role rather than losing its scope, which would widen it to every role of its
 * user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('base_session', (table) => {
    table.binary('id_hash').primary();
    table.integer('user_id').notNullable().references('id').inTable('base_user').onDelete('CASCADE');
    table.string('csrf_secret', 64).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index('user_id');
    table.index('expires_at');
  });
  await knex.raw(
    'alter table base_session add constraint base_session_id_hash_length check (octet_length(id_hash) = 32)',
  );
  await knex.schema.createTable('base_api_token', (table) => {
    table.increments('id');
    table.binary('token_hash').notNullable().unique();
    table.string('name', 100);
    table.integer('user_id').notNullable().references('id').inTable('base_user').onDelete('CASCADE');
    table.integer('role_id').references('id').inTable('base_role').onDelete('CASCADE');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('expires_at', { useTz: true });
    table.timestamp('revoked_at', { useTz: true });
    table.timestamp('last_used_at', { useTz: true });
    table.index('user_id');
  });
  await knex.raw(
    'alter table base_api_token add constraint base_api_token_hash_length check (octet_length(token_hash) = 32)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('base_api_token');
  await knex.schema.dropTable('base_session');
}

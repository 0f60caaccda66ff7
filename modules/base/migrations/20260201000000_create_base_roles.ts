import type { Knex } from 'knex';

/**
 * Roles by name (what manifests and the grants file refer to) and who holds them. A user without a
 * password hash is a service account: it cannot sign in, only use API tokens.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table base_user alter column password_hash drop not null');
  await knex.schema.alterTable('base_user', (table) => {
    table.timestamp('password_changed_at', { useTz: true });
  });
  await knex.schema.createTable('base_role', (table) => {
    table.increments('id');
    table.string('name', 63).notNullable().unique();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('base_user_role', (table) => {
    table.integer('user_id').notNullable().references('id').inTable('base_user').onDelete('CASCADE');
    table.integer('role_id').notNullable().references('id').inTable('base_role').onDelete('CASCADE');
    table.timestamp('granted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['user_id', 'role_id']);
    table.index('role_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('base_user_role');
  await knex.schema.dropTable('base_role');
  await knex.schema.alterTable('base_user', (table) => {
    table.dropColumn('password_changed_at');
  });
  // '!' is no scrypt hash, so these accounts still cannot sign in.
  await knex('base_user').whereNull('password_hash').update({ password_hash: '!' });
  await knex.raw('alter table base_user alter column password_hash set not null');
}

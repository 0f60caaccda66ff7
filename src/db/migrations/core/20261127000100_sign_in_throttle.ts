import type { Knex } from 'knex';

/**
 * The sign-in throttle's counts and the browsers trusted for a username (src/auth/throttle.ts),
 * shared by every backend replica and kept across restarts. Core tables rather than the base
 * module's: they name typed usernames, known or not, and addresses, never a user row, and every
 * backend needs them at once, without waiting for an upgrade of the base module.
 *
 * - `core_sign_in_count`: one row per counted key (`pair:`, `user:`, `address:`, `network:`), its
 *   state as the throttle's policy reads it, and when it stops mattering (rows past it are purged).
 * - `core_sign_in_device`: one row per browser and username that signed in successfully: the
 *   SHA-256 of the browser's device secret (the secret itself is only in its cookie), that
 *   browser's consecutive failures for the username, and until when it is trusted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('core_sign_in_count', (table) => {
    table.text('key').primary();
    table.jsonb('state').notNullable();
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.index(['expires_at']);
  });
  await knex.schema.createTable('core_sign_in_device', (table) => {
    table.binary('device_hash').notNullable();
    table.text('username').notNullable();
    table.integer('failures').notNullable().defaultTo(0);
    table.bigInteger('last_failure_ms').notNullable().defaultTo(0);
    table.timestamp('trusted_until', { useTz: true }).notNullable();
    table.primary(['device_hash', 'username']);
    table.index(['trusted_until']);
  });
  await knex.raw(
    'alter table core_sign_in_device add constraint core_sign_in_device_hash_length check (octet_length(device_hash) = 32)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('core_sign_in_device');
  await knex.schema.dropTable('core_sign_in_count');
}

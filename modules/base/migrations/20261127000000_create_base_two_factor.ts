import type { Knex } from 'knex';

/**
 * Two-factor sign-in: a user's TOTP secret (confirmed once the user has typed a code from it),
 * the last time step a code was accepted for (a code works once), consecutive wrong codes and
 * until when they lock the second step; single-use recovery codes, stored as their SHA-256; and
 * the short-lived challenges that stand between a right password and a session.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('base_user_totp', (table) => {
    table.integer('user_id').primary().references('id').inTable('base_user').onDelete('CASCADE');
    table.text('secret').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('confirmed_at', { useTz: true });
    table.bigInteger('last_time_step');
    table.integer('failures').notNullable().defaultTo(0);
    table.timestamp('locked_until', { useTz: true });
  });
  await knex.schema.createTable('base_recovery_code', (table) => {
    table.binary('code_hash').primary();
    table.integer('user_id').notNullable().references('id').inTable('base_user').onDelete('CASCADE');
    table.timestamp('used_at', { useTz: true });
    table.index('user_id');
  });
  await knex.schema.createTable('base_sign_in_challenge', (table) => {
    table.binary('id_hash').primary();
    table.integer('user_id').notNullable().references('id').inTable('base_user').onDelete('CASCADE');
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.integer('failures').notNullable().defaultTo(0);
  });
  // A confirmed or removed second factor changes what a session may do (an enrolment the clinic requires).
  await knex.raw(
    `create trigger base_user_totp_notify after insert or update of confirmed_at or delete on base_user_totp
       for each row execute function base_notify_auth_change('user_id')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists base_user_totp_notify on base_user_totp');
  await knex.schema.dropTable('base_sign_in_challenge');
  await knex.schema.dropTable('base_recovery_code');
  await knex.schema.dropTable('base_user_totp');
}

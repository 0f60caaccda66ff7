/**
 * A real PostgreSQL database per test: on the server named by DATABASE_URL when set, otherwise on
 * an embedded server kept under storage/test (apart from the developer's own data). Each test
 * gets a fresh database, dropped when it ends, so ava can run files in parallel.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import pg from 'pg';
import { ROOT } from '../../src/config.ts';
import { ensureEmbedded } from '../../src/db/embedded.ts';
import { migrateCore } from '../../src/db/migrate.ts';

export const TEST_STORAGE = path.join(ROOT, 'storage', 'test');

async function serverUrl(): Promise<string> {
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== '') return external;
  return (await ensureEmbedded(TEST_STORAGE)).url;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  knex: Knex;
}

/** A new empty database; `migrated: true` also brings the core branch to head. */
export async function testDatabase(
  t: ExecutionContext,
  options: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  const server = await serverUrl();
  const name = `ward_test_${randomBytes(6).toString('hex')}`;
  await admin(server, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(server, name);
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  t.teardown(async () => {
    await knex.destroy();
    await admin(server, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });
  if (options.migrated === true) await migrateCore(knex);
  return { url, knex };
}

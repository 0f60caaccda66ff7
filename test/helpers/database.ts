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

export interface ScratchDatabase extends TestDatabase {
  /** Closes `knex` and drops the database. */
  drop(): Promise<void>;
}

/**
 * A new database on the test server, empty or a copy of `template` (see `templateDatabase`), that
 * lives until `drop` runs: for code without an ava `t`, such as the benchmarks. `prefix` starts its
 * name; `pool` caps its knex pool.
 */
export async function newDatabase(
  options: { template?: string; prefix?: string; pool?: number } = {},
): Promise<ScratchDatabase> {
  const server = await serverUrl();
  const name = `${options.prefix ?? 'ward_test_'}${randomBytes(6).toString('hex')}`;
  const template = options.template === undefined ? '' : ` TEMPLATE ${options.template}`;
  await createDatabase(server, `CREATE DATABASE ${name}${template}`);
  const url = withDatabase(server, name);
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: options.pool ?? 4 } });
  return {
    url,
    knex,
    async drop() {
      await knex.destroy();
      await admin(server, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * A new database, empty or a copy of `template` (see `templateDatabase`), dropped when the test
 * ends; `migrated: true` also brings the core branch to head.
 */
export async function testDatabase(
  t: ExecutionContext,
  options: { migrated?: boolean; template?: string } = {},
): Promise<TestDatabase> {
  const { url, knex, drop } = await newDatabase({ template: options.template });
  t.teardown(drop);
  if (options.migrated === true) await migrateCore(knex);
  return { url, knex };
}

/**
 * A database prepared once (by `prepare`, which must close its connections) that tests copy with
 * `testDatabase(t, { template })`: copying is far cheaper than repeating the preparation.
 * Dropped when the test process exits.
 */
export async function templateDatabase(prepare: (url: string) => Promise<void>): Promise<string> {
  const server = await serverUrl();
  const name = `ward_template_${randomBytes(6).toString('hex')}`;
  await admin(server, (client) => client.query(`CREATE DATABASE ${name}`));
  await prepare(withDatabase(server, name));
  process.once('beforeExit', () => {
    void admin(server, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });
  return name;
}

/** PostgreSQL refuses to copy a template while a session that just ended is still winding down. */
async function createDatabase(server: string, sql: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await admin(server, (client) => client.query(sql));
      return;
    } catch (error) {
      const busy = /is being accessed by other users/.test((error as Error).message);
      if (!busy || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

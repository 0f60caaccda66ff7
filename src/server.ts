/**
 * The backend's start-up sequence: nothing listens until the database is at the core head and
 * the bootstrap checks pass, so a client never sees a half-started Ward.
 */
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { createApp } from './api/app.ts';
import type { Config } from './config.ts';
import { assertNoOrphans } from './controller/bootstrap.ts';
import { discover } from './controller/discover.ts';
import { databaseUrl, openDatabase } from './db/connection.ts';
import { LOCK_KEYS, withAdvisoryLock } from './db/lock.ts';
import { migrateCore } from './db/migrate.ts';
import { readModuleRows } from './db/modules.ts';

export interface Backend {
  server: Server;
  knex: Knex;
  close(): Promise<void>;
}

export async function startBackend(config: Config): Promise<Backend> {
  const knex = await openDatabase(config, { pool: 10 });
  try {
    await withAdvisoryLock(await databaseUrl(config), LOCK_KEYS.reconcile, async () => {
      await migrateCore(knex);
      const inventory = await discover({
        root: config.root,
        modulePaths: config.modulePaths,
        packageRoot: config.packageRoot,
      });
      assertNoOrphans(inventory, await readModuleRows(knex));
    });
  } catch (error) {
    await knex.destroy();
    throw error;
  }
  const server = createApp(knex).listen(config.port);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return {
    server,
    knex,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await knex.destroy();
    },
  };
}

/**
 * The backend's start-up sequence: nothing listens until the reconcile has run (core schema at
 * head, bootstrap checks passed, pending module changes applied), so a client never sees a
 * half-started Ward.
 */
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { createApp } from './api/app.ts';
import type { Config } from './config.ts';
import { reconcile, type Reconciled } from './controller/reconcile.ts';
import { databaseUrl, openDatabase } from './db/connection.ts';
import type { Logger } from './logger.ts';

export interface Backend {
  server: Server;
  knex: Knex;
  reconciled: Reconciled;
  close(): Promise<void>;
}

export async function startBackend(config: Config, logger: Logger): Promise<Backend> {
  const knex = await openDatabase(config, { pool: 10 });
  let reconciled: Reconciled;
  try {
    reconciled = await reconcile(knex, await databaseUrl(config), config, logger);
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
    reconciled,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await knex.destroy();
    },
  };
}

/**
 * Ward's real HTTP app in the test process, on a real PostgreSQL with the base module and the
 * `intake` fixture module (test/fixtures/modules/auth) installed by the real controller, listening
 * on a free port. The installed database is prepared once and copied per test.
 */
import { sealingKey } from '../../src/auth/secret-seal.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { createApp, type AppDeps, type WardApp } from '../../src/api/app.ts';
import { readGrants } from '../../src/auth/grants.ts';
import { hashPassword } from '../../src/auth/password.ts';
import { createUser } from '../../src/auth/users.ts';
import { loadConfig, ROOT } from '../../src/config.ts';
import { discover } from '../../src/manifests/discover.ts';
import { reconcile } from '../../src/applier/reconcile.ts';
import { schedule } from '../../src/db/schedule.ts';
import { migrateCore } from '../../src/db/migrate.ts';
import { readModuleRows } from '../../src/db/modules.ts';
import { silentLogger } from '../../src/logger.ts';
import type { WardSdk } from '../../src/sdk/index.ts';
import { ModuleApis } from '../../src/sdk/module-apis.ts';
import { FIXTURES, scratchDir, TEST_SECRET_KEY } from './cli.ts';
import { templateDatabase, testDatabase } from './database.ts';

export const AUTH_MODULES = path.join(FIXTURES, 'modules', 'auth');

export function authEnv(url: string, storage: string, modulePaths = AUTH_MODULES): Record<string, string> {
  return { DATABASE_URL: url, WARD_STORAGE_DIR: storage, WARD_MODULE_PATHS: modulePaths };
}

/**
 * Installs `modules` (and what they depend on) the way a restart does, in-process; community
 * modules come from `modulePaths` (the `auth` fixtures by default).
 */
export async function install(url: string, modules: string[], modulePaths = AUTH_MODULES): Promise<void> {
  const config = loadConfig(authEnv(url, await scratchDir(), modulePaths));
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  try {
    await migrateCore(knex);
    const inventory = await discover(config);
    for (const name of modules) await schedule(knex, inventory, { kind: 'install', name }, { dryRun: false });
    const result = await reconcile(knex, url, config, silentLogger);
    if (result.failed.length > 0) throw new Error(`install failed: ${JSON.stringify(result.failed)}`);
  } finally {
    await knex.destroy();
  }
}

/**
 * The SDK view Ward hands official module `name` on this database: its depends' public APIs
 * loaded, its acting contexts on `knex`. For tests and benchmarks that call a module's code
 * directly.
 */
export async function officialSdk(knex: Knex, storageDir: string, name: string): Promise<WardSdk> {
  const { modules } = await discover({ root: ROOT, modulePaths: [], packageRoot: ROOT });
  return new ModuleApis({ modules, knex, storageDir, logger: silentLogger }).sdkFor(modules.get(name)!);
}

let template: Promise<string> | undefined;

/** A fresh database with base and intake installed and no user. */
export async function installedDatabase(t: ExecutionContext): Promise<{ url: string; knex: Knex }> {
  template ??= templateDatabase((url) => install(url, ['intake']));
  return testDatabase(t, { template: await template });
}

export interface RunningApp {
  base: string;
  app: WardApp;
  restarts: () => number;
}

export async function startApp(
  t: ExecutionContext,
  knex: Knex,
  options: { grants?: object; overrides?: Partial<AppDeps>; modulePaths?: string } = {},
): Promise<RunningApp> {
  const storage = await scratchDir('ward-app-');
  const config = loadConfig(authEnv('postgres://unused', storage, options.modulePaths));
  if (options.grants !== undefined) await writeFile(config.grantsFile.path, JSON.stringify(options.grants));
  let restarts = 0;
  const app = await createApp({
    knex,
    inventory: await discover(config),
    rows: await readModuleRows(knex),
    logger: silentLogger,
    storageDir: storage,
    grants: await readGrants(config.grantsFile),
    onRestart: () => restarts++,
    sealingKey: sealingKey(TEST_SECRET_KEY),
    ...options.overrides,
  });
  const server = http.createServer(app.handle).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
  });
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, app, restarts: () => restarts };
}

/** Passwords in tests are long enough for the rule (12 characters) and obviously fake. */
export const PASSWORD = 'correct horse battery';

export async function addUser(
  knex: Knex,
  username: string,
  roles: string[],
  password: string | null = PASSWORD,
) {
  return createUser(knex, {
    username,
    roles,
    passwordHash: password === null ? null : await hashPassword(password),
  });
}

export interface Answer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

/** fetch, reading the body as text and JSON when it is JSON. */
export async function call(
  base: string,
  method: string,
  pathname: string,
  options: {
    token?: string;
    cookie?: string;
    csrf?: string;
    json?: unknown;
    body?: string | Buffer;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (options.csrf !== undefined) headers['x-csrf-token'] = options.csrf;
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + pathname, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

export interface SignedIn {
  token: string;
  csrfToken: string;
  /** `ward_session=…`, ready for a Cookie header. */
  cookie: string;
  setCookie: string;
}

export async function signIn(base: string, username: string, password = PASSWORD): Promise<SignedIn> {
  const answer = await call(base, 'POST', '/api/v1/auth/login', { json: { username, password } });
  if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status} ${answer.text}`);
  const setCookie = answer.headers.get('set-cookie') ?? '';
  const { token, csrfToken } = answer.body as { token: string; csrfToken: string };
  return { token, csrfToken, cookie: setCookie.split(';')[0] as string, setCookie };
}

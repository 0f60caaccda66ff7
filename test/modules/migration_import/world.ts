/**
 * The migration_import module running for real in the test process: a database with it (and the
 * clinic modules it depends on) installed by the real controller, Ward's real Koa app on a free
 * port, users with the roles the test names, and helpers to create, validate and execute jobs
 * over HTTP and wait for their background runs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { silentLogger, type Logger } from '../../../src/logger.ts';
import type { WardSdk } from '../../../src/sdk/index.ts';
import { createApiToken } from '../../../src/auth/api-tokens.ts';
import { scratchDir } from '../../helpers/cli.ts';
import { addUser, call, install, officialSdk, signIn, startApp, type Answer } from '../../helpers/app.ts';
import { templateDatabase, testDatabase } from '../../helpers/database.ts';
import { fixturesDir } from '../../../scripts/generate-import-fixtures.ts';

export const API = '/api/v1/migration_import';

let template: Promise<string> | undefined;

/** A fresh database with base, patients, appointments, documents and migration_import installed, no user. */
export async function importDatabase(t: ExecutionContext): Promise<{ url: string; knex: Knex }> {
  template ??= templateDatabase((url) => install(url, ['migration_import']));
  return testDatabase(t, { template: await template });
}

export const fixtureBytes = (file: string): Promise<Buffer> => readFile(path.join(fixturesDir, file));

/** migration_import's SDK on the world's database, as Ward hands it to the module. */
export const importSdk = (w: { knex: Knex; storage: string }): Promise<WardSdk> =>
  officialSdk(w.knex, w.storage, 'migration_import');

/** What a purge is given, acting as the retention sweeper does. */
export async function purgeDeps(w: { knex: Knex; storage: string }) {
  const sdk = await importSdk(w);
  return {
    acting: sdk.jobActing('migration_import:retention'),
    sdk,
    storageDir: w.storage,
    logger: silentLogger,
  };
}

export interface World {
  knex: Knex;
  base: string;
  storage: string;
  /** A bearer token of a user holding the admin role. */
  admin: string;
  /** Calls the module's API as `token` (the admin's by default). */
  api(method: string, pathname: string, options?: Parameters<typeof call>[3]): Promise<Answer>;
}

/**
 * An app on a fresh import database, with the admin `ada` signed in; `grants` widen the roles,
 * `logger` receives what the app logs. `url` is the database's, for a `ward` command to use.
 */
export async function world(
  t: ExecutionContext,
  options: { grants?: object; logger?: Logger } = {},
): Promise<World & { url: string }> {
  const { knex, url } = await importDatabase(t);
  const storage = await scratchDir('ward-import-');
  await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex, {
    grants: options.grants,
    overrides: { storageDir: storage, ...(options.logger === undefined ? {} : { logger: options.logger }) },
  });
  const admin = (await signIn(base, 'ada')).token;
  return {
    url,
    knex,
    base,
    storage,
    admin,
    api: (method, pathname, callOptions = {}) =>
      call(base, method, `${API}${pathname}`, { token: admin, ...callOptions }),
  };
}

/** A token-only user holding `role`, and an API token scoped to it. */
export async function serviceToken(knex: Knex, username: string, role: string): Promise<string> {
  const userId = await addUser(knex, username, [role], null);
  return (await createApiToken(knex, { userId, role, name: username, expiresAt: null })).secret;
}

export interface JobBody {
  id: number;
  state: string;
  counts: { records?: Record<string, number>; warnings?: Record<string, number> };
  progress: { done: number; total: number; percent: number };
  results: Record<string, Record<string, number>>;
  error: string | null;
}

export async function createJob(
  w: World,
  source: string | Buffer,
  query: { format: string; source_system?: string },
): Promise<JobBody> {
  const params = new URLSearchParams({ source_system: 'oldclinic', ...query });
  const answer = await w.api('POST', `/jobs?${params}`, {
    body: source,
    headers: { 'content-type': 'application/octet-stream' },
  });
  if (answer.status !== 201) throw new Error(`create failed: ${answer.status} ${answer.text}`);
  return answer.body as JobBody;
}

const FINISHED = new Set(['validated', 'invalid', 'succeeded', 'partially_succeeded', 'failed', 'created']);

/** Polls GET /jobs/{id} until the background run ends. */
export async function settled(w: World, id: number, timeoutMs = 60_000): Promise<JobBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await w.api('GET', `/jobs/${id}`);
    const job = answer.body as JobBody;
    if (FINISHED.has(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.state} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function validate(w: World, id: number): Promise<JobBody> {
  const answer = await w.api('POST', `/jobs/${id}/validate`);
  if (answer.status !== 202) throw new Error(`validate failed: ${answer.status} ${answer.text}`);
  return settled(w, id);
}

export async function execute(w: World, id: number): Promise<JobBody> {
  const answer = await w.api('POST', `/jobs/${id}/execute`);
  if (answer.status !== 202) throw new Error(`execute failed: ${answer.status} ${answer.text}`);
  return settled(w, id);
}

/** Creates, validates and executes a job from a fixture file. */
export async function importFixture(w: World, file: string, format: string): Promise<JobBody> {
  const job = await createJob(w, await fixtureBytes(file), { format });
  const validated = await validate(w, job.id);
  if (validated.state !== 'validated')
    throw new Error(`${file} did not validate: ${JSON.stringify(validated)}`);
  return execute(w, job.id);
}

export interface WarningBody {
  row: number;
  field: string;
  code: string;
  severity: string;
  message: string;
  phase: string;
}

/** Every warning of a job, following the cursor. */
export async function allWarnings(w: World, id: number, query = ''): Promise<WarningBody[]> {
  const all: WarningBody[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams(query);
    params.set('limit', '200');
    if (cursor !== null) params.set('cursor', cursor);
    const answer = await w.api('GET', `/jobs/${id}/warnings?${params}`);
    if (answer.status !== 200) throw new Error(`warnings failed: ${answer.status} ${answer.text}`);
    const page = answer.body as { items: WarningBody[]; nextCursor: string | null };
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

export async function clinicalCounts(knex: Knex): Promise<Record<string, number>> {
  const count = async (table: string) =>
    Number(((await knex(table).count({ n: '*' })) as Array<{ n: string }>)[0]!.n);
  return {
    patients: await count('patients_patient'),
    appointments: await count('appointments_appointment'),
    documents: await count('documents_document'),
  };
}

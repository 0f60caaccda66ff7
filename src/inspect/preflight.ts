/**
 * The preflight's shell: reads what the next start would read (the settings, the grants file, the
 * modules on disk, the module rows and their tables) and hands it to the pure check
 * (src/planner/preflight.ts). `ward modules restart` and `ward modules doctor` run it with their own
 * configuration; a running backend asked to restart runs it again with the settings files read
 * afresh, since the command may have run on another host or in another container.
 */
import type { Knex } from 'knex';
import { readGrants } from '../auth/grants.ts';
import { loadConfig, type Config } from '../config.ts';
import { isWardError, type WardError } from '../errors/ward-error.ts';
import { missingModuleTables, readModuleRows } from '../db/modules.ts';
import { discover } from '../manifests/discover.ts';
import { leftoverFirstAdminFile } from '../auth/first-admin.ts';
import { redactUrl } from '../config/redact-url.ts';
import { checkDatabaseUrl } from '../db/connection.ts';
import { checkStorageDir } from '../storage-dir.ts';
import {
  databaseChanged,
  fileFindings,
  preflight,
  type FileChecks,
  type Finding,
  type StartInputs,
} from '../planner/preflight.ts';
import type { Inventory } from '../planner/types.ts';
import { backendSettings } from '../config/backend-settings.ts';

/** The WardError `check` throws, or null when it passes; anything else is a bug and is thrown. */
async function refusalOf(check: () => unknown): Promise<WardError | null> {
  try {
    await check();
    return null;
  } catch (error) {
    if (isWardError(error)) return error;
    throw error;
  }
}

/** The settings a backend parses, DATABASE_URL, the storage folder and the grants file, checked as a start checks them. */
export async function checkFiles(config: Config): Promise<FileChecks> {
  const [settings, database, storage, grants] = await Promise.all([
    refusalOf(() => backendSettings(config)),
    refusalOf(() => (config.databaseUrl === null ? null : checkDatabaseUrl(config.databaseUrl))),
    checkStorageDir(config.storageDir),
    refusalOf(() => readGrants(config.grantsFile)),
  ]);
  return { settings, database, storage, grants };
}

/** What a start with `config` would see; `inventory`: what discovery found, when the caller has it. */
export async function startInputs(
  knex: Knex,
  config: Config,
  inventory?: Promise<Inventory>,
): Promise<StartInputs> {
  const [found, rows, missingTables, files, firstAdminFile] = await Promise.all([
    inventory ?? discover(config),
    readModuleRows(knex),
    missingModuleTables(knex),
    checkFiles(config),
    leftoverFirstAdminFile(knex, config.storageDir),
  ]);
  return { inventory: found, rows, missingTables, firstAdminFile, ...files };
}

/**
 * In a running backend: what its next start would refuse. The settings files are read again, as
 * that start will read them; if they no longer parse, that is a finding, and the rest is checked
 * with the settings this backend started with. If they now name another database, the rows of
 * this one would say nothing of it: that is the finding, with the files.
 */
export async function recheck(knex: Knex, running: Config): Promise<Finding[]> {
  const { config, unreadable } = rereadConfig(running);
  if (config.databaseUrl !== running.databaseUrl) {
    const shown = (url: string | null) => (url === null ? 'the embedded PostgreSQL' : redactUrl(url));
    const files = await checkFiles(config);
    return [...fileFindings(files), databaseChanged(shown(running.databaseUrl), shown(config.databaseUrl))];
  }
  const inputs = await startInputs(knex, config);
  return preflight({ ...inputs, settings: unreadable ?? inputs.settings });
}

/**
 * In a running backend: the settings its next start would read, and the error if they no longer
 * parse (then `config` is the one it started with, for checking the rest).
 */
export function rereadConfig(running: Config): { config: Config; unreadable: WardError | null } {
  try {
    return { config: loadConfig(process.env, { root: running.root }), unreadable: null };
  } catch (error) {
    if (!isWardError(error)) throw error;
    return { config: running, unreadable: error };
  }
}

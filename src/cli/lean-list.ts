/**
 * `ward modules list [--json]` without oclif or knex, which together take longer to load than the
 * command takes to run (bench/list.ts: the target is 1.5x a bare pg script). It prints exactly what the oclif
 * command (commands/modules/list.ts) prints, from the same functions; test/cli/lean-list.test.ts
 * compares the two byte for byte. Whatever it cannot print the same way, it leaves to oclif
 * before printing anything.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { discover } from '../manifests/discover.ts';
import { listModules } from '../planner/overview.ts';
import type { ModuleRow } from '../planner/types.ts';
import { databaseUrl } from '../db/connection.ts';
import { MODULE_ROWS_SQL } from '../db/modules.ts';
import { queryOnce } from '../db/pg-client.ts';
import { reportFailure, reportWarnings } from '../server/failure.ts';
import { renderList } from './render.ts';

/** oclif's --json output when no theme colours it. */
const printJson = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

/** True once it has printed the list or a WardError; false leaves the whole command to oclif. */
export async function leanList({ json }: { json: boolean }): Promise<boolean> {
  // oclif colours JSON with a user's theme.json: rather than copy its theming, leave that to it.
  if (json && existsSync(userThemeFile(process.env))) return false;
  try {
    const config = loadConfig();
    reportWarnings(config.warnings, (text) => console.error(text));
    // The same two reads, started together, as the oclif command's, so that failures race alike.
    const [inventory, rows] = await Promise.all([
      discover(config),
      databaseUrl(config).then((url) => queryOnce<ModuleRow>(url, MODULE_ROWS_SQL)),
    ]);
    const entries = listModules(inventory, rows);
    if (json) printJson(entries);
    else console.log(renderList(entries));
    return true;
  } catch (error) {
    const exitCode = reportFailure(error, json, { json: printJson, stderr: (text) => console.error(text) });
    // A bug: oclif reruns the (read-only) command and prints the error its own way.
    if (exitCode === null) return false;
    process.exitCode = exitCode;
    return true;
  }
}

/** Where oclif looks for a user's JSON colour theme (its configDir; Ward runs on POSIX only). */
function userThemeFile(env: NodeJS.ProcessEnv): string {
  const configHome = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(env.WARD_CONFIG_DIR || path.join(configHome, 'ward'), 'theme.json');
}

/**
 * What the next start would refuse, known before a restart stops the backend that serves now: a
 * restart never makes things worse. Every restart channel asks this first and, when it finds
 * anything, leaves the running backend serving. The findings are the start's own errors, from
 * the same checks (bootstrap.ts for modules and tables; the settings and grants file checks their
 * callers ran), so the preflight and the start never disagree. `ward modules doctor` shows them too.
 */
import { WardError } from '../errors/ward-error.ts';
import { missingTablesRefusal, unusableModulesRefusal } from './bootstrap.ts';
import type { Inventory, MissingTable, ModuleRow } from './types.ts';

/** One reason the next start would refuse: what was found, and the fix. */
export interface Finding {
  code: string;
  message: string;
  hint: string;
}

/** What checking the files a start reads threw: null when the check passed. */
export interface FileChecks {
  /** The settings files and the settings a backend parses (PORT, HOST, WARD_JSON_LIMIT, ...). */
  settings: WardError | null;
  /** DATABASE_URL, parsed as the start parses it. */
  database: WardError | null;
  /** The storage folder, which the start creates if need be and must be able to write. */
  storage: WardError | null;
  /** The grants file. */
  grants: WardError | null;
}

/** What the next start would see. */
export interface StartInputs extends FileChecks {
  inventory: Inventory;
  rows: readonly ModuleRow[];
  missingTables: readonly MissingTable[];
  /** The first admin's password file left from before, in a database with no user. */
  firstAdminFile: WardError | null;
}

const finding = (error: WardError): Finding => ({
  code: error.code,
  message: error.message,
  hint: error.hint,
});

/** The findings of the files and settings a start reads, in the order it checks them. */
export function fileFindings(checks: FileChecks): Finding[] {
  return [checks.settings, checks.database, checks.storage, checks.grants]
    .filter((error) => error !== null)
    .map(finding);
}

/** Every finding that would make the next start refuse, in the order the start checks them; [] to go ahead. */
export function preflight(inputs: StartInputs): Finding[] {
  const modules = [
    unusableModulesRefusal(inputs.inventory, inputs.rows),
    missingTablesRefusal(inputs.missingTables),
  ].filter((error) => error !== null);
  return [...fileFindings(inputs), ...modules.map(finding), ...firstAdmin(inputs)];
}

const firstAdmin = (inputs: StartInputs): Finding[] =>
  inputs.firstAdminFile === null ? [] : [finding(inputs.firstAdminFile)];

/**
 * A running backend asked to restart, whose settings now name another database than the one it
 * uses: its rows say nothing of the database the next start would open.
 */
export function databaseChanged(running: string, next: string): Finding {
  return {
    code: 'database_url_changed',
    message: `DATABASE_URL changed since this backend started (from ${running} to ${next}): the next start would open another database, which this backend cannot check`,
    hint: 'restart with --force (`ward modules restart --force`, or "force": true over HTTP) to switch databases, or set DATABASE_URL back',
  };
}

/** The findings as lines for a terminal or a log: each message, then its fix. */
export function renderFindings(findings: readonly Finding[]): string {
  return findings
    .map(({ message, hint }) => `- ${message.replaceAll('\n', '\n  ')}\n  fix: ${hint}`)
    .join('\n');
}

/**
 * Pure: the refusal of a restart, for the CLI (`--force`) or the HTTP endpoint (`force`); `how`
 * says how to restart anyway.
 */
export function restartRefused(findings: readonly Finding[], how: string): WardError {
  return new WardError(
    'restart_refused',
    `not restarted: the backend would refuse to start again:\n${renderFindings(findings)}`,
    `a running backend keeps serving; fix what is listed (\`ward modules doctor\` shows it too), then restart again. ${how} restarts anyway, and the backend then stays down until it is fixed`,
  );
}

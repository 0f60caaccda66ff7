import { spawn } from 'node:child_process';
import os from 'node:os';
import { databaseUrl } from '../../../db/connection.ts';
import { queryOnce } from '../../../db/pg-client.ts';
import { WardError } from '../../../errors/ward-error.ts';
import { WardCommand } from '../../base.ts';

export default class DbPsql extends WardCommand {
  static override description =
    "Run the machine's psql on the database Ward uses (the embedded server is started if need be). Standard input, output and error pass through and the exit code is psql's; arguments after -- go to psql";
  static override examples = [
    '<%= config.bin %> db psql',
    '<%= config.bin %> db psql -- -v ON_ERROR_STOP=1 -f storage/backups/module_lab_20261121T101500Z.sql',
    '<%= config.bin %> db psql < storage/backups/module_lab_20261121T101500Z.sql',
    '<%= config.bin %> db psql -- -At -c "select name, state from core_module"',
  ];
  // Every argument is psql's: none is parsed here, and a flag oclif does not know is not an error.
  static override strict = false;
  static readonly '--' = false;

  async run(): Promise<void> {
    const client = await psqlMajorVersion();
    const url = await databaseUrl(this.settings);
    const server = await serverMajorVersion(url);
    if (client !== null && client !== server)
      this.logToStderr(
        `warning: psql is version ${client} and the server PostgreSQL ${server}; SQL works, some backslash commands may not (Debian: install postgresql-client-${server} for a matching psql)`,
      );
    process.exitCode = await runPsql(url, psqlArguments(this.argv));
  }
}

/** `ward db psql -- -f x.sql`: the `--` only ends ward's own arguments. */
function psqlArguments(argv: readonly string[]): string[] {
  return argv[0] === '--' ? argv.slice(1) : [...argv];
}

/** The major version of the psql on PATH (null if it does not say), or a WardError if there is none. */
function psqlMajorVersion(): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('psql', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new WardError(
              'psql_missing',
              'psql, the PostgreSQL client, is not installed (there is no `psql` on PATH)',
              'install it (Debian or Ubuntu: `apt-get install postgresql-client`; macOS: `brew install libpq`), or use the one in the database container: `docker compose exec -T db psql -U <user> <db>`',
              { cause: error },
            )
          : error,
      ),
    );
    child.on('close', () => {
      const match = /\(PostgreSQL\) (\d+)/.exec(output);
      resolve(match === null ? null : Number(match[1]));
    });
  });
}

async function serverMajorVersion(url: string): Promise<number> {
  const [row] = await queryOnce<{ version: string }>(
    url,
    "select current_setting('server_version_num') as version",
  );
  return Math.floor(Number(row?.version) / 10_000);
}

/**
 * The URL psql is given, and the password taken out of it: the one in the userinfo and a
 * `password` query parameter (libpq reads both; the query's wins) go to PGPASSWORD instead.
 */
export function psqlTarget(url: string): { dbname: string; password: string } {
  const target = new URL(url);
  const password = target.searchParams.get('password') ?? decodeURIComponent(target.password);
  target.password = '';
  target.searchParams.delete('password');
  return { dbname: target.toString(), password };
}

/**
 * Runs psql until it exits; resolves with its exit code (128 + the signal number if a signal ended
 * it). The password goes in PGPASSWORD, never on the command line, which `ps` shows to every user.
 */
function runPsql(url: string, args: readonly string[]): Promise<number> {
  const { dbname, password } = psqlTarget(url);
  return new Promise((resolve, reject) => {
    const child = spawn('psql', ['--dbname', dbname, ...args], {
      stdio: 'inherit',
      env: password === '' ? process.env : { ...process.env, PGPASSWORD: password },
    });
    // The terminal sends Ctrl-C and Ctrl-\ to psql too, which cancels the query and goes on: this
    // process must outlive them to return psql's exit code. Signals aimed at ward alone go to psql.
    const ignore = () => undefined;
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    const handlers: Array<[NodeJS.Signals, (signal: NodeJS.Signals) => void]> = [
      ['SIGINT', ignore],
      ['SIGQUIT', ignore],
      ['SIGTERM', forward],
      ['SIGHUP', forward],
    ];
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const done = () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
    child.on('error', (error) => {
      done();
      reject(error);
    });
    child.on('close', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal === null ? 0 : os.constants.signals[signal]));
    });
  });
}

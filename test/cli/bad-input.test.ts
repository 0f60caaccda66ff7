import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import test from 'ava';
import { AUTH_MODULES, installedDatabase } from '../helpers/app.ts';
import { FIXTURES, parseJson, scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { snapshot } from '../helpers/rows.ts';

const modulePaths = (...dirs: string[]) => dirs.map((dir) => path.join(FIXTURES, 'modules', dir)).join(':');

/** A refused command: exit code, a message naming the problem, a hint with the fix, no stack, no write. */
async function refused(
  t: Parameters<typeof testDatabase>[0],
  args: string[],
  expected: { code: number; message: RegExp; hint?: RegExp },
  extraEnv: Record<string, string> = {},
) {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const before = await snapshot(knex);
  const run = await ward(args, { DATABASE_URL: url, ...extraEnv });
  t.is(run.code, expected.code, `${run.stdout}\n${run.stderr}`);
  t.regex(run.stderr, expected.message);
  if (expected.hint !== undefined) t.regex(run.stderr, expected.hint);
  t.notRegex(run.stderr, /^\s+at /m, 'no stack trace');
  t.deepEqual(await snapshot(knex), before, 'no row changed');
}

for (const name of ['../x', 'a;drop table core_module', 'A', '9lives', 'x'.repeat(64), '']) {
  test(`install refuses the module name ${JSON.stringify(name).slice(0, 20)} as bad usage`, (t) =>
    refused(t, ['modules', 'install', name], {
      code: 2,
      message:
        name === '' ? /is not a valid module name|Missing 1 required arg/ : /is not a valid module name/,
    }));
}

for (const command of ['info', 'upgrade', 'uninstall', 'orphan']) {
  test(`${command} refuses an invalid module name before touching anything`, (t) =>
    refused(t, ['modules', command, 'Bad-Name'], {
      code: 2,
      message: /"Bad-Name" is not a valid module name/,
    }));
}

test('install of an unknown module names it and points to list', (t) =>
  refused(t, ['modules', 'install', 'nosuch'], {
    code: 1,
    message: /nosuch is not a known module/,
    hint: /ward modules list/,
  }));

test('install of a module with malformed JSON names the file', (t) =>
  refused(
    t,
    ['modules', 'install', 'broken_json'],
    { code: 1, message: /broken_json.*manifest/s },
    { WARD_MODULE_PATHS: modulePaths('broken') },
  ));

test('install of a module with schema violations names the file and the JSON path', (t) =>
  refused(
    t,
    ['modules', 'install', 'broken_schema'],
    { code: 1, message: /broken_schema\/manifest\.json.*\/version/s },
    { WARD_MODULE_PATHS: modulePaths('broken') },
  ));

test('install of a module that exists twice names both places', (t) =>
  refused(
    t,
    ['modules', 'install', 'patients'],
    { code: 1, message: /patients.*dupe\/patients/s },
    { WARD_MODULE_PATHS: modulePaths('dupe') },
  ));

test('install of a module in a dependency cycle shows the cycle', (t) =>
  refused(
    t,
    ['modules', 'install', 'cycle_a'],
    { code: 1, message: /cycle_a -> cycle_b -> cycle_a/ },
    { WARD_MODULE_PATHS: modulePaths('cycle') },
  ));

test('install of a module whose dependency is missing names the dependency', async (t) => {
  const dir = await scratchDir();
  await mkdir(path.join(dir, 'lonely'));
  await writeFile(
    path.join(dir, 'lonely', 'manifest.json'),
    JSON.stringify({ name: 'lonely', version: '1.0.0', depends: ['nowhere'] }),
  );
  await refused(
    t,
    ['modules', 'install', 'lonely'],
    { code: 1, message: /lonely depends on nowhere/ },
    { WARD_MODULE_PATHS: dir },
  );
});

test('an unknown flag is bad usage', (t) =>
  refused(t, ['modules', 'install', 'base', '--yes-really'], {
    code: 2,
    message: /Nonexistent flag: --yes-really/,
  }));

test('an unknown command is bad usage and points to --help', (t) =>
  refused(t, ['modules', 'frobnicate'], {
    code: 2,
    message: /unknown command "modules frobnicate"/,
    hint: /ward --help/,
  }));

test('a missing argument is bad usage', (t) =>
  refused(t, ['modules', 'uninstall'], {
    code: 2,
    message: /^error: Missing 1 required arg/,
    hint: /hint: run `ward modules uninstall --help`/,
  }));

for (const value of ['-5', '0', 'abc'])
  test(`restart --timeout ${value} is bad usage, refused before anything is restarted`, (t) =>
    refused(t, ['modules', 'restart', '--wait', '--timeout', value], {
      code: 2,
      message: /^error: bad value for --timeout: Expected an integer/,
      hint: /hint: run `ward modules restart --help`/,
    }));

test('with --json, bad usage is the same small error object as every other refusal', async (t) => {
  const run = await ward(['modules', 'install', 'base', '--json', '--bogus'], {});
  t.is(run.code, 2);
  t.true(run.stdout.length < 500, `${run.stdout.length} characters on stdout`);
  t.deepEqual(parseJson(run), {
    error: {
      code: 'bad_usage',
      message: 'Nonexistent flag: --bogus',
      hint: 'run `ward modules install --help` for its arguments and flags',
    },
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

for (const args of [
  ['modules', 'list'],
  ['modules', 'install', 'base'],
  ['db', 'migrate'],
]) {
  test(`${args.join(' ')} with the database unreachable says so without a stack trace`, async (t) => {
    const port = await closedPort();
    const run = await ward(args, { DATABASE_URL: `postgres://ward:secret@127.0.0.1:${port}/ward` });
    t.is(run.code, 1);
    t.is(
      run.stderr,
      `error: cannot reach the database at postgres://ward:***@127.0.0.1:${port}/ward (ECONNREFUSED)\n` +
        'hint: check DATABASE_URL (unset it to use the embedded PostgreSQL) and that the server runs\n',
    );
  });
}

test('a database server that accepts but never answers is reported unreachable after the 10 s connect timeout', async (t) => {
  /** A server that accepts and stays silent, and the time its first connection came in. */
  const silentServer = async () => {
    let accepted: number | undefined;
    const silent = net.createServer(() => (accepted ??= Date.now()));
    const port = await new Promise<number>((resolve) =>
      silent.listen(0, '127.0.0.1', () => resolve((silent.address() as net.AddressInfo).port)),
    );
    t.teardown(() => {
      silent.close();
    });
    return { port, accepted: () => accepted };
  };
  // Both paths: oclif's (knex pool) and the lean `modules list`'s (one pg client), each its own
  // server, so that each run's time counts from its own connection, not from a loaded start.
  await Promise.all(
    [
      ['modules', 'status'],
      ['modules', 'list'],
    ].map(async (args) => {
      const { port, accepted } = await silentServer();
      const run = await ward(args, { DATABASE_URL: `postgres://ward:secret@127.0.0.1:${port}/ward` });
      const took = Date.now() - (accepted() as number);
      t.is(run.code, 1);
      t.is(
        run.stderr,
        `error: cannot reach the database at postgres://ward:***@127.0.0.1:${port}/ward (timeout)\n` +
          'hint: check DATABASE_URL (unset it to use the embedded PostgreSQL) and that the server runs\n',
      );
      // The connect timeout gives up after 10 s. Without it the pool would wait 30 s, which no
      // machine can make shorter (a timer never fires early); so only ending the process takes the
      // rest of the margin, however loaded the machine.
      t.true(took < 30_000, `${args.join(' ')} took ${took} ms after it connected`);
    }),
  );
});

test('an installed module whose tables are gone stops the backend with what to do, not a stack trace', async (t) => {
  const { url, knex } = await installedDatabase(t);
  await knex.raw('drop table base_session');
  const before = await snapshot(knex);
  const run = await ward(['backend'], {
    DATABASE_URL: url,
    PORT: '0',
    WARD_STORAGE_DIR: await scratchDir(),
    WARD_MODULE_PATHS: AUTH_MODULES,
  });
  t.is(run.code, 1);
  t.is(
    run.stderr,
    'error: installed modules whose tables are gone from the database:\nbase: base_session\n' +
      'hint: the database no longer matches what Ward recorded (restored in part, or changed by hand): restore it from a backup; Ward will not start on it\n',
  );
  t.deepEqual(await snapshot(knex), before);
});

test('--json errors are a JSON object on stdout with code, message and hint', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const run = await ward(['modules', 'install', 'nosuch', '--json'], { DATABASE_URL: url });
  t.is(run.code, 1);
  t.like(parseJson(run), { error: { code: 'unknown_module' } });
});

test('a database without the core tables says to run `ward db migrate`, which fixes it', async (t) => {
  const { url } = await testDatabase(t);
  const run = await ward(['modules', 'list'], { DATABASE_URL: url });
  t.is(run.code, 1);
  t.regex(run.stderr, /^error: the core tables are missing \(.*relation "core_module" does not exist\)$/m);
  t.regex(run.stderr, /^hint: run `ward db migrate`/m);
  const migrate = await ward(['db', 'migrate'], { DATABASE_URL: url });
  t.is(migrate.code, 0, migrate.stderr);
  t.is(
    migrate.stdout,
    'Applied core/20260101000000_core_schema, core/20260102000000_module_tables, core/20261127000000_module_requires, core/20261127000100_sign_in_throttle, core/20261127000200_audit, core/20261127002100_audit_patient_ids, core/20261127002200_audit_append, core/20261128000000_audit_patient_ids_concurrently, core/20261128000100_audit_append_texts, core/20261128000200_audit_read_indexes.\n',
  );
  t.is(
    (await ward(['db', 'migrate'], { DATABASE_URL: url })).stdout,
    'Core schema is at head; nothing to apply.\n',
  );
  t.is((await ward(['modules', 'list'], { DATABASE_URL: url })).code, 0);
});

/** `ward <command>` with one bad setting, while a plan waits: refused with exit 1, nothing applied. */
async function refusedSetting(
  t: Parameters<typeof testDatabase>[0],
  command: string,
  env: Record<string, string>,
  expected: { message: RegExp; hint: RegExp },
) {
  const { url, knex } = await testDatabase(t, { migrated: true });
  t.is((await ward(['modules', 'install', 'base'], { DATABASE_URL: url })).code, 0);
  const before = await snapshot(knex);
  const run = await ward([command], { DATABASE_URL: url, ...env });
  t.is(run.code, 1, `${run.stdout}\n${run.stderr}`);
  t.regex(run.stderr, expected.message);
  t.regex(run.stderr, expected.hint);
  t.notRegex(run.stderr, /^\s+at /m, 'no stack trace');
  t.notRegex(run.stdout, /listening on/);
  t.deepEqual(await snapshot(knex), before, 'the plan was not applied');
  t.false(await knex.schema.hasTable('base_user'), 'no module table was created');
}

for (const [variable, value, message, hint] of [
  ['PORT', 'abc', /PORT="abc" is not a TCP port/, /from 1 to 65535, or 0/],
  ['PORT', '99999', /PORT="99999" is not a TCP port/, /from 1 to 65535, or 0/],
  ['WARD_TRUST_PROXY', 'ture', /WARD_TRUST_PROXY="ture" is neither on nor off/, /give 1 or 0/],
  ['WARD_JSON_LIMIT', 'lots', /WARD_JSON_LIMIT="lots" is not a size/, /such as 1mb/],
] as const)
  test(`a backend with ${variable}=${value} refuses to start before it applies the plan`, (t) =>
    refusedSetting(t, 'backend', { [variable]: value }, { message, hint }));

test('a backend with LOG_LEVEL=verbose names the setting, where it was set and the levels, without a stack trace', (t) =>
  refusedSetting(
    t,
    'backend',
    { LOG_LEVEL: 'verbose' },
    {
      message: /LOG_LEVEL="verbose" \(set in the environment\) is not a log level/,
      hint: /give one of fatal, error, warn, info, debug, trace, silent; unset, it is info/,
    },
  ));

test('ward serve with LOG_LEVEL=verbose in the storage settings file names the file and line', async (t) => {
  const storage = await scratchDir();
  await writeFile(path.join(storage, 'ward.env'), '# settings\nLOG_LEVEL=verbose\n');
  await refusedSetting(
    t,
    'serve',
    { WARD_STORAGE_DIR: storage },
    {
      message: new RegExp(`LOG_LEVEL="verbose" \\(set in ${storage}/ward\\.env:2\\) is not a log level`),
      hint: /give one of fatal, error, warn, info, debug, trace, silent/,
    },
  );
});

test('a backend with a malformed grants file refuses to start before it applies the plan', async (t) => {
  const file = path.join(await scratchDir(), 'grants.json');
  await writeFile(file, '{"roles": {"Bad Role": []}}');
  await refusedSetting(
    t,
    'backend',
    { WARD_GRANTS_FILE: file },
    { message: /grants\.json: \/roles\/Bad Role is not a valid role name/, hint: /hint:/ },
  );
});

test('ward serve with WARD_SPARE_BACKEND=maybe refuses to start anything', (t) =>
  refusedSetting(
    t,
    'serve',
    { WARD_SPARE_BACKEND: 'maybe' },
    { message: /WARD_SPARE_BACKEND="maybe" is neither on nor off/, hint: /unset, it is on/ },
  ));

test('ward serve with PORT=abc refuses before it starts a backend, rather than restarting one under back-off', (t) =>
  refusedSetting(
    t,
    'serve',
    { PORT: 'abc' },
    { message: /PORT="abc" is not a TCP port/, hint: /from 1 to 65535, or 0/ },
  ));

test('a backend with a storage folder it cannot use refuses to start before it applies the plan', async (t) => {
  const file = path.join(await scratchDir(), 'a-file');
  await writeFile(file, '');
  await refusedSetting(
    t,
    'backend',
    { WARD_STORAGE_DIR: path.join(file, 'storage') },
    { message: /cannot use the storage folder .*a-file\/storage \(ENOTDIR\)/, hint: /set WARD_STORAGE_DIR/ },
  );
});

// Node's recursive mkdir never returns there: the folder must be refused, not waited on forever.
for (const dir of ['/proc/ward-storage', '/sys/ward-storage'])
  test(`the embedded database refuses the storage folder ${dir} with the setting to fix`, async (t) => {
    const run = await ward(['modules', 'list'], { WARD_STORAGE_DIR: dir });
    t.is(run.code, 1, run.stderr);
    t.regex(run.stderr, new RegExp(`cannot use the storage folder ${dir} \\(E[A-Z]+\\)`));
    t.regex(run.stderr, /hint: set WARD_STORAGE_DIR/);
  });

test('a backend whose port is taken says which port and what to do, and exits', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const taken = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => taken.once('listening', resolve));
  t.teardown(() => taken.close());
  const { port } = taken.address() as net.AddressInfo;
  const run = await ward(['backend'], { DATABASE_URL: url, PORT: String(port) });
  t.is(run.code, 1, run.stdout);
  t.regex(run.stderr, new RegExp(`error: port ${port} is already in use`));
  t.regex(run.stderr, /hint: stop what listens there .* or set PORT/);
  t.notRegex(run.stderr, /^\s+at /m, 'no stack trace');
});

test('a DATABASE_URL that cannot work is refused with what is wrong, on both CLI paths, its password never shown', async (t) => {
  const { url } = await testDatabase(t);
  const closer = net.createServer((socket) => socket.destroy());
  const port = await new Promise<number>((resolve) =>
    closer.listen(0, '127.0.0.1', () => resolve((closer.address() as net.AddressInfo).port)),
  );
  t.teardown(() => {
    closer.close();
  });
  const noPassword = new URL(url);
  noPassword.password = '';
  const cases: Array<[string, RegExp]> = [
    ['postgres://ward:s3cret@127.0.0.1:99999/ward', /^error: DATABASE_URL is not a URL\n/],
    ['mysql://ward:s3cret@127.0.0.1/ward', /^error: DATABASE_URL is a mysql URL, not a PostgreSQL one\n/],
    [noPassword.toString(), /asks for a password and DATABASE_URL has none\nhint: put the password/],
    [
      `postgres://ward:s3cret@127.0.0.1:${port}/ward`,
      /closed the connection without answering as PostgreSQL\nhint: .*is that host and port a PostgreSQL server/,
    ],
  ];
  for (const [databaseUrl, expected] of cases)
    for (const args of [
      ['modules', 'status'],
      ['modules', 'list'],
    ]) {
      const run = await ward(args, { DATABASE_URL: databaseUrl });
      t.is(run.code, 1, `${args.join(' ')} with ${databaseUrl}: ${run.stdout}`);
      t.regex(run.stderr, expected, `${args.join(' ')} with ${databaseUrl}`);
      t.notRegex(run.stderr, /s3cret|^\s+at /m);
    }
});

test('restore --file of something that is not a file names it, before the database is touched', (t) =>
  refused(t, ['modules', 'restore', 'base', '--file', '/nonexistent/module_base_20260101T000000Z.sql'], {
    code: 1,
    message: /^error: \/nonexistent\/module_base_20260101T000000Z\.sql is not a file$/m,
    hint: /pass --file with the path of a backup/,
  }));

for (const value of ['not a host', '127.0.0.300', '[localhost]', '-bad-.example'])
  test(`a backend with HOST=${value} refuses to start before it applies the plan`, (t) =>
    refusedSetting(
      t,
      'backend',
      { HOST: value },
      {
        message: new RegExp(
          `HOST=${JSON.stringify(value).replace(/[[\].]/g, '\\$&')} is not an address to listen on`,
        ),
        hint: /0\.0\.0\.0 or :: for every interface/,
      },
    ));

test('ward serve with HOST=not a host refuses before it starts a backend', (t) =>
  refusedSetting(
    t,
    'serve',
    { HOST: 'not a host' },
    { message: /HOST="not a host" is not an address to listen on/, hint: /127\.0\.0\.1 \(the default\)/ },
  ));

test('a backend with HOST set to an address this machine does not have says so, and the fix', async (t) => {
  const { url } = await installedDatabase(t);
  // 198.51.100.0/24 is reserved for documentation (RFC 5737): no ordinary machine has it.
  const run = await ward(['backend'], {
    DATABASE_URL: url,
    PORT: '0',
    HOST: '198.51.100.77',
    WARD_STORAGE_DIR: await scratchDir(),
    WARD_MODULE_PATHS: AUTH_MODULES,
  });
  t.is(run.code, 1, run.stdout);
  t.regex(run.stderr, /^error: HOST=198\.51\.100\.77 is not an address of this machine$/m);
  t.regex(run.stderr, /^hint: set HOST to one of its addresses/m);
  t.notRegex(run.stderr, /^\s+at /m, 'no stack trace');
});

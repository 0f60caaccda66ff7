/**
 * `ward modules run <module> [command] [arguments…]`: an installed module's own commands, from its
 * commands.ts or commands.js, listed, run with their arguments and the SDK, their refusals
 * rendered like every other; and every mistake (a module not installed, one with no commands, an
 * unknown command, a malformed commands file) refused with what to do.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { commandsProblem } from '../../src/cli/module-commands.ts';
import { parseJson, scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows } from '../helpers/rows.ts';

const TOOLS = `export default [
  {
    name: 'greet',
    usage: '<name>',
    summary: 'Says hello',
    run: (args, ctx) => ({
      lines: ['hello ' + args.join(' ') + ' from ' + ctx.manifest.name + ' as ' + ctx.operator],
      data: { args, storage: ctx.storageDir },
    }),
  },
  {
    name: 'count-modules',
    summary: 'Counts the module rows',
    run: async (_args, ctx) => ({ lines: [String((await ctx.knex('core_module').count({ n: '*' }))[0].n)] }),
  },
  {
    name: 'refuse',
    summary: 'Always refuses',
    run: (_args, ctx) => {
      throw new ctx.sdk.errors.WardError('tools_refused', 'it refused', 'ask someone else');
    },
  },
];
`;

async function setUp(t: Parameters<typeof testDatabase>[0]) {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const folder = await scratchDir('ward-run-modules-');
  const module = async (name: string, commands: string | null, depends: string[] = []) => {
    await mkdir(path.join(folder, name), { recursive: true });
    await writeFile(
      path.join(folder, name, 'manifest.json'),
      JSON.stringify({ name, version: '1.0.0', depends }),
    );
    if (commands !== null) await writeFile(path.join(folder, name, 'commands.js'), commands);
  };
  await module('tools', TOOLS);
  await module('plain', null);
  await module('broken_tools', "export default { name: 'not a list' };\n");
  await module('later_tools', TOOLS);
  await module('needy_tools', TOOLS, ['tools_base']);
  await module('tools_base', null);
  await setRows(knex, [
    { name: 'needy_tools', state: 'installed', version: '1.0.0' },
    { name: 'tools_base', state: 'uninstalled', version: null },
    { name: 'tools', state: 'installed', version: '1.0.0' },
    { name: 'plain', state: 'installed', version: '1.0.0' },
    { name: 'broken_tools', state: 'installed', version: '1.0.0' },
    { name: 'later_tools', state: 'to_install', version: null },
  ]);
  const storage = await scratchDir('ward-run-storage-');
  const env = { DATABASE_URL: url, WARD_MODULE_PATHS: folder, WARD_STORAGE_DIR: storage };
  return { env, folder, storage };
}

const operator = `cli:${os.userInfo().username}`;

test('without a command, the module’s commands are listed with their arguments and summaries', async (t) => {
  const { env } = await setUp(t);
  const run = await ward(['modules', 'run', 'tools'], env);
  t.is(run.code, 0, run.stderr);
  t.is(
    run.stdout,
    'greet <name>\n  Says hello\ncount-modules\n  Counts the module rows\nrefuse\n  Always refuses\n',
  );
});

test('a command runs with its arguments, the manifest, the database and who runs it; --json prints its data', async (t) => {
  const { env, storage } = await setUp(t);
  const run = await ward(['modules', 'run', 'tools', 'greet', 'Ada', 'Lovelace'], env);
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout, `hello Ada Lovelace from tools as ${operator}\n`);
  const json = await ward(['modules', 'run', 'tools', 'greet', 'Ada', '--json'], env);
  t.deepEqual(parseJson(json), {
    module: 'tools',
    command: 'greet',
    result: { args: ['Ada'], storage },
  });
  const counted = await ward(['modules', 'run', 'tools', 'count-modules'], env);
  t.is(counted.stdout, '6\n');
});

test('a command’s own refusal is rendered with its message and hint, exit 1', async (t) => {
  const { env } = await setUp(t);
  const run = await ward(['modules', 'run', 'tools', 'refuse'], env);
  t.is(run.code, 1);
  t.regex(run.stderr, /it refused/);
  t.regex(run.stderr, /ask someone else/);
  t.notRegex(run.stderr, /\bat .*\.js:\d+/, 'no stack trace');
});

test('mistakes are refused with what to do: unknown command, module not installed, none on disk, no commands, a malformed file', async (t) => {
  const { env, folder } = await setUp(t);
  const unknown = await ward(['modules', 'run', 'tools', 'greeet'], env);
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /module tools has no command "greeet"; it has greet, count-modules, refuse/);
  t.regex(unknown.stderr, /ward modules run tools/);

  const pending = await ward(['modules', 'run', 'later_tools', 'greet'], env);
  t.is(pending.code, 1);
  t.regex(pending.stderr, /module later_tools is to_install: its commands need it installed/);

  const missing = await ward(['modules', 'run', 'nowhere'], env);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /no module named "nowhere" on disk/);

  const plain = await ward(['modules', 'run', 'plain'], env);
  t.is(plain.code, 1);
  t.regex(plain.stderr, /module plain has no commands/);

  const broken = await ward(['modules', 'run', 'broken_tools'], env);
  t.is(broken.code, 1);
  t.true(
    broken.stderr.includes(
      `${path.join(folder, 'broken_tools', 'commands.js')} does not default-export an array of commands`,
    ),
  );

  const badName = await ward(['modules', 'run', 'Tools!'], env);
  t.is(badName.code, 2, 'a module name is checked before anything is read');
});

test('commandsProblem names what is wrong with a commands file', (t) => {
  const run = () => ({ lines: [] });
  t.is(commandsProblem([{ name: 'purge', summary: 'Purges', run }]), null);
  t.is(commandsProblem({}), 'does not default-export an array of commands');
  t.regex(commandsProblem([{ name: 'Purge', summary: 's', run }]) ?? '', /command 0 has no valid name/);
  t.is(
    commandsProblem([
      { name: 'a', summary: 's', run },
      { name: 'a', summary: 's', run },
    ]),
    'names the command "a" twice',
  );
  t.is(commandsProblem([{ name: 'a', summary: ' ', run }]), 'command "a" has no summary');
  t.is(commandsProblem([{ name: 'a', summary: 's' }]), 'command "a" has no run function');
});

test('an inactive module (installed, a dependency of it not) runs no command, and says why and what to do', async (t) => {
  const { env } = await setUp(t);
  const run = await ward(['modules', 'run', 'needy_tools', 'greet', 'Ada', '--json'], env);
  t.is(run.code, 1);
  t.deepEqual(parseJson<{ error: unknown }>(run).error, {
    code: 'module_inactive',
    message: 'needy_tools is inactive: it depends on tools_base, which is not installed',
    hint: 'install tools_base (`ward modules install tools_base`, then restart) to bring needy_tools back, or uninstall needy_tools (`ward modules uninstall needy_tools`)',
  });
});

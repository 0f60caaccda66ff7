/**
 * The samples of command output in the README and the guides are what the commands print: each is
 * run here, as the text tells a reader to, and compared with the text, so a new module version or
 * a changed message cannot leave a guide behind.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { ROOT } from '../../src/config.ts';
import { scratchDir, ward, type WardEnv } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { serve } from '../helpers/serve.ts';

const doc = (name: string) => readFile(path.join(ROOT, name), 'utf8');

/**
 * The output a sh block shows for `command`: the `# ` lines right under the line that runs it,
 * without their `# `.
 */
function commentedOutput(markdown: string, command: string): string[] {
  const lines = markdown.split('\n');
  const at = lines.findIndex((line) => line.trim() === command);
  if (at < 0) throw new Error(`no line runs ${command}`);
  const shown: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith('# ')) break;
    shown.push(line.slice(2));
  }
  return shown;
}

/** A transcript block: what follows `$ <command>` up to the end of its fence. */
function transcript(markdown: string, command: string): string {
  const lines = markdown.split('\n');
  const at = lines.indexOf(`$ ${command}`);
  if (at < 0) throw new Error(`no transcript of ${command}`);
  const end = lines.indexOf('```', at);
  return `${lines.slice(at + 1, end).join('\n')}\n`;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ');

async function fresh(t: ExecutionContext): Promise<WardEnv> {
  const { url } = await testDatabase(t);
  return { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir(), WARD_FRONTEND_DIR: await scratchDir() };
}

test("the README's first five minutes print what it shows: the plan, the restart's steps, modules list", async (t) => {
  const readme = await doc('README.md');
  const env = await fresh(t);
  const served = await serve(env, 'serve');
  t.teardown(() => served.stop());

  const install = await ward(['modules', 'install', 'migration_import'], env);
  t.is(install.code, 0, install.stderr);
  const mentioned = /The install prints the plan \(`([^`]+)`, …, `([^`]+)`\)/.exec(oneLine(readme));
  t.truthy(mentioned, 'the README says what the install prints');
  for (const said of mentioned?.slice(1) ?? []) t.true(oneLine(install.stdout).includes(said), said);

  const restarted = await ward(['modules', 'restart', '--wait'], env);
  t.is(restarted.code, 0, restarted.stdout + restarted.stderr);
  const step = /`restart --wait` prints each step as the backend announces it \(`([^`]+)`/.exec(
    oneLine(readme),
  );
  t.truthy(step, 'the README says what restart --wait prints');
  t.true(oneLine(restarted.stdout).includes(step?.[1] ?? ''), step?.[1]);

  const list = await ward(['modules', 'list'], env);
  t.is(list.code, 0, list.stderr);
  t.deepEqual(
    list.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.trimEnd()),
    commentedOutput(readme, 'bin/ward modules list'),
  );
});

test("docs/cli.md's install transcript is what `ward modules install appointments` prints", async (t) => {
  const env = await fresh(t);
  const migrated = await ward(['db', 'migrate'], env);
  t.is(migrated.code, 0, migrated.stderr);
  const install = await ward(['modules', 'install', 'appointments'], env);
  t.is(install.code, 0, install.stderr);
  t.is(install.stdout, transcript(await doc('docs/cli.md'), 'ward modules install appointments'));
});

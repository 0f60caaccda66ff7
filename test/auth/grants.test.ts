import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { parseGrants, readGrants } from '../../src/auth/grants.ts';

const FILE = '/etc/ward/grants.json';

test('a valid file: roles to grants, duplicates dropped', (t) => {
  t.deepEqual(
    parseGrants(
      JSON.stringify({
        roles: {
          migration_operator: ['migration_import.job.read', 'migration_import.job.read', 'patients.*'],
          root: ['*'],
        },
      }),
      FILE,
    ),
    { migration_operator: ['migration_import.job.read', 'patients.*'], root: ['*'] },
  );
  t.deepEqual(parseGrants('{"roles": {}}', FILE), {});
});

const refusals: Array<[string, string]> = [
  ['{', `${FILE}: is not valid JSON:`],
  ['[]', `${FILE}: / must be an object with a "roles" field`],
  ['{}', `${FILE}: /roles must be an object mapping role names to lists of grants`],
  ['{"roles": {}, "role": {}}', `${FILE}: /role is not a known field; the only field is "roles"`],
  ['{"roles": {"Admin": []}}', `${FILE}: /roles/Admin is not a valid role name`],
  ['{"roles": {"ops": "x.y.z"}}', `${FILE}: /roles/ops must be a list of strings`],
  ['{"roles": {"ops": ["x.y.read", "X"]}}', `${FILE}: /roles/ops/1 "X" is not a grant`],
  ['{"roles": {"ops": ["x.y.*"]}}', `${FILE}: /roles/ops/0 "x.y.*" is not a grant`],
  ['{"roles": {"ops": ["patients"]}}', `${FILE}: /roles/ops/0 "patients" is not a grant`],
];

for (const [text, message] of refusals)
  test(`refused, naming the file and the path: ${text}`, (t) => {
    const error = t.throws(() => parseGrants(text, FILE));
    t.is(error?.message.startsWith(message), true, error?.message);
    t.like(error, { code: 'invalid_grants_file' });
    t.regex((error as { hint?: string }).hint ?? '', /"roles"/);
  });

test('a JSON syntax error is refused with its line and column', (t) => {
  const error = t.throws(() => parseGrants('{\n  "roles": {\n    "ops": ["x.y.read",]\n  }\n}\n', FILE));
  t.is(error?.message, `${FILE}: is not valid JSON: Unexpected token ']' at line 3, column 24`);
  t.like(error, { code: 'invalid_grants_file' });
});

test('a missing default file means no extra grants; a missing explicit file is an error', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ward-grants-'));
  const missing = path.join(dir, 'grants.json');
  t.deepEqual(await readGrants({ path: missing, required: false }), {});
  const error = await t.throwsAsync(readGrants({ path: missing, required: true }));
  t.is(error?.message, `cannot read the grants file ${missing} (ENOENT)`);
  await writeFile(missing, '{"roles": {"ops": ["x.y.read"]}}');
  t.deepEqual(await readGrants({ path: missing, required: true }), { ops: ['x.y.read'] });
});

import test from 'ava';
import { Ajv } from 'ajv';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import schema from '../../src/manifests/manifest.schema.json' with { type: 'json' };
import { checkManifest, readManifest } from '../../src/manifests/manifest.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const broken = join(repo, 'test/fixtures/modules/broken');

async function tempManifest(text: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'ward-manifest-')), 'manifest.json');
  await writeFile(file, text);
  return file;
}

/** Problems of an in-memory manifest, as `path: message` lines. */
async function problemsOf(document: unknown, expectedName?: string): Promise<string[]> {
  const result = await checkManifest(
    document,
    'manifest.json',
    expectedName === undefined ? {} : { expectedName },
  );
  return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.message}`);
}

test('the schema is valid draft-07 under ajv strict mode', (t) => {
  t.notThrows(() => new Ajv({ strict: true, allErrors: true }).compile(schema));
});

test('an official manifest is read, with defaults filled in', async (t) => {
  const result = await readManifest(join(repo, 'modules/base/manifest.json'), { expectedName: 'base' });
  t.true(result.ok);
  if (result.ok) t.like(result.manifest, { name: 'base', version: '1.2.0', depends: [], removable: false });
  const minimal = await checkManifest({ name: 'tiny', version: '0.1.0' }, 'manifest.json');
  t.deepEqual(minimal, {
    ok: true,
    manifest: { name: 'tiny', version: '0.1.0', depends: [], removable: true },
  });
});

test('malformed JSON is one problem naming the file and the line and column', async (t) => {
  const file = join(broken, 'broken_json/manifest.json');
  t.deepEqual(await readManifest(file, { expectedName: 'broken_json' }), {
    ok: false,
    problems: [
      {
        file,
        path: '/',
        message: 'is not valid JSON: Expected double-quoted property name at line 4, column 3',
        module: 'broken_json',
      },
    ],
  });
});

test('an unexpected token is located even though V8 does not say where', async (t) => {
  const file = await tempManifest('{\n  "name": "x",\n  "version": tru\n}\n');
  const result = await readManifest(file);
  t.deepEqual(result.ok ? [] : result.problems.map((problem) => [problem.message, problem.module]), [
    ["is not valid JSON: Unexpected token '\\n' at line 3, column 17", null],
  ]);
});

test('a truncated file points at its end', async (t) => {
  const file = await tempManifest('{"name": "x"');
  const result = await readManifest(file);
  t.deepEqual(result.ok ? [] : result.problems.map((problem) => problem.message), [
    "is not valid JSON: Expected ',' or '}' after property value at line 1, column 13",
  ]);
  const empty = await readManifest(await tempManifest(''));
  t.deepEqual(empty.ok ? [] : empty.problems.map((problem) => problem.message), [
    'is not valid JSON: Unexpected end of JSON input at line 1, column 1',
  ]);
});

test('a missing manifest says it cannot be read', async (t) => {
  const file = join(broken, 'nowhere/manifest.json');
  t.deepEqual(await readManifest(file), {
    ok: false,
    problems: [{ file, path: '/', message: 'cannot be read (ENOENT)', module: null }],
  });
});

test('schema violations are one problem each, at the offending field', async (t) => {
  const file = join(broken, 'broken_schema/manifest.json');
  const result = await readManifest(file, { expectedName: 'broken_schema' });
  t.deepEqual(result, {
    ok: false,
    problems: [
      {
        file,
        path: '/dependencies',
        message:
          'unknown field; allowed fields are $schema, name, version, summary, depends, requires, removable, permissions, ' +
          'role_permissions, navigation, frontend, api',
        module: 'broken_schema',
      },
      {
        file,
        path: '/version',
        message: '"1.0" is not a semver version such as 1.0.0 or 2.1.0-beta.1',
        module: 'broken_schema',
      },
    ],
  });
});

test('bad names say what module names may look like', async (t) => {
  t.deepEqual(await problemsOf({ name: 'Patients', version: '1.0.0', depends: ['base', '../etc'] }), [
    '/name: "Patients" is not a valid module name: module names are lowercase letters, digits and _, ' +
      'starting with a letter, at most 63 characters',
    '/depends/1: "../etc" is not a valid module name: module names are lowercase letters, digits and _, ' +
      'starting with a letter, at most 63 characters',
  ]);
});

test('missing fields, wrong types and repeats are reported', async (t) => {
  t.deepEqual(await problemsOf({ summary: 3 }), [
    '/: missing required field "name"',
    '/: missing required field "version"',
    '/summary: must be a string',
  ]);
  t.deepEqual(await problemsOf({ name: 'x', version: '1.0.0', depends: ['a', 'b', 'a'], removable: 'no' }), [
    '/depends: lists "a" twice (items 0 and 2)',
    '/removable: must be a boolean',
  ]);
  t.deepEqual(await problemsOf([]), ['/: must be an object']);
});

test('permissions, roles and navigation are checked', async (t) => {
  const manifest = {
    name: 'portal',
    version: '1.0.0',
    permissions: ['portal', 'portal.page.read', 'patients.patient.read'],
    role_permissions: { Admin: ['*'], staff: ['portal.page.read', 'all'] },
    navigation: [
      { label: '', path: 'portal', permission: 'portal.page.read', icon: 'x' },
      { label: 'Log in again', path: '//evil.example/login', permission: 'portal.page.read' },
    ],
  };
  t.deepEqual(await problemsOf(manifest), [
    '/permissions/0: "portal" is not a permission name: two or more lowercase segments separated by dots, ' +
      'such as patients.patient.read',
    '/role_permissions/Admin: "Admin" is not a valid role name: role names are lowercase letters, digits and _, ' +
      'starting with a letter',
    '/role_permissions/staff/1: "all" is not a permission name such as patients.patient.read, ' +
      'or "*" for every permission',
    '/navigation/0/icon: unknown field; allowed fields are label, path, permission, order',
    '/navigation/0/label: must not be empty',
    '/navigation/0/path: "portal" is not a frontend route of this site: routes start with a single / ' +
      '(// or /\\ would lead to another host) and hold no spaces or control characters (a browser drops them, ' +
      'and /<tab>/host leads to another host)',
    '/navigation/1/path: "//evil.example/login" is not a frontend route of this site: routes start with a ' +
      'single / (// or /\\ would lead to another host) and hold no spaces or control characters (a browser ' +
      'drops them, and /<tab>/host leads to another host)',
  ]);
});

test('a navigation path with whitespace or a control character is a manifest error: a browser drops them and leaves the site', async (t) => {
  const paths = [
    '/\t/127.0.0.1:18601/x',
    '/\n/evil.example',
    '/pa\rtients',
    '/a b',
    '/\u0000x',
    '/x\u007f',
    '/\u0085x',
    '/\u00a0x',
    '/x\u2028',
  ];
  const manifest = {
    name: 'portal',
    version: '1.0.0',
    permissions: ['portal.page.read'],
    navigation: paths.map((path) => ({ label: 'Portal', path, permission: 'portal.page.read' })),
  };
  const problems = await problemsOf(manifest);
  t.deepEqual(
    problems.map((problem) => problem.split(':')[0]),
    paths.map((_, index) => `/navigation/${index}/path`),
  );
  t.true(problems[0]?.includes('"/\\t/127.0.0.1:18601/x" is not a frontend route of this site'), problems[0]);
  t.true(problems.every((problem) => problem.includes('hold no spaces or control characters')));
  const fine = {
    ...manifest,
    navigation: [{ label: 'Portal', path: '/portal/visits?day=today#top', permission: 'portal.page.read' }],
  };
  t.deepEqual(await problemsOf(fine), []);
});

test('a navigation order is a whole number from 0 to 1000, 500 when not given', async (t) => {
  const entry = { label: 'Portal', path: '/portal', permission: 'portal.page.read' };
  const manifest = {
    name: 'portal',
    version: '1.0.0',
    navigation: [entry, { ...entry, order: 1.5 }, { ...entry, order: 1001 }, { ...entry, order: -1 }],
  };
  t.deepEqual(await problemsOf(manifest), [
    '/navigation/1/order: must be an integer',
    '/navigation/2/order: must be <= 1000',
    '/navigation/3/order: must be >= 0',
  ]);
  const read = await checkManifest(
    { name: 'portal', version: '1.0.0', navigation: [{ ...entry }] },
    'm.json',
  );
  t.deepEqual(read.ok ? read.manifest.navigation : null, [{ ...entry, order: 500 }]);
});

test('requires names only modules in depends, each with an npm version range', async (t) => {
  const manifest = {
    name: 'reports',
    version: '1.0.0',
    depends: ['documents', 'patients'],
    requires: { documents: '^1.2.0', patients: 'one or two', billing: '^1.0.0', Bad: '1.x' },
  };
  t.deepEqual(await problemsOf(manifest), [
    '/requires/Bad: "Bad" is not a valid module name: module names are lowercase letters, digits and _, starting with a letter, at most 63 characters',
  ]);
  const named = { documents: '^1.2.0', patients: 'one or two', billing: '^1.0.0' };
  t.deepEqual(await problemsOf({ ...manifest, requires: named }), [
    '/requires/patients: "one or two" is not a version range; write one as npm does, such as "^1.2.0", ">=1.0.0 <3.0.0" or "1.x"',
    '/requires/billing: requires a version of billing, which is not in "depends"; add "billing" to "depends" or remove it from "requires"',
  ]);
  t.deepEqual(
    await problemsOf({ ...manifest, requires: { documents: '>=1.0.0 <3.0.0', patients: '1.x' } }),
    [],
  );
});

test('a module may define only permissions in its own namespace', async (t) => {
  const manifest = {
    name: 'portal',
    version: '1.0.0',
    permissions: ['portal.page.read', 'patients.patient.read'],
  };
  t.deepEqual(await problemsOf(manifest), [
    '/permissions/1: "patients.patient.read" belongs to another module; this one defines "portal.*"',
  ]);
});

test('the frontend layer must stay inside the module directory', async (t) => {
  const message =
    'is not a frontend layer path: give a path inside the module directory, relative and without ".."';
  for (const frontend of ['../shared', 'web/../../x', '/srv/www', '\\\\server\\share', 'C:/web', '..']) {
    t.deepEqual(await problemsOf({ name: 'x', version: '1.0.0', frontend }), [
      `/frontend: ${JSON.stringify(frontend)} ${message}`,
    ]);
  }
  for (const frontend of ['frontend', 'dist/web', './web', '..web', 'web..']) {
    t.deepEqual(await problemsOf({ name: 'x', version: '1.0.0', frontend }), [], frontend);
  }
});

test('the name must match the directory when one is expected', async (t) => {
  t.deepEqual(await problemsOf({ name: 'renamed', version: '1.0.0' }, 'misnamed'), [
    '/name: "renamed" differs from its directory name "misnamed"; rename one',
  ]);
  const result = await checkManifest({ name: 'renamed', version: 'x' }, 'manifest.json', {
    expectedName: 'misnamed',
  });
  t.is(result.ok ? null : result.problems[0]?.module, 'renamed');
});

test('problems are attributed to the directory name when the manifest has no usable name', async (t) => {
  const result = await checkManifest({ name: 'Bad Name', version: '1.0.0' }, 'manifest.json', {
    expectedName: 'bad',
  });
  t.is(result.ok ? null : result.problems[0]?.module, 'bad');
});

test('the version pattern agrees with the semver package on strict semver', async (t) => {
  const samples = [
    '1.0.0',
    '0.0.1',
    '10.20.30',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-0.3.7',
    '1.0.0-x.7.z.92',
    '1.0.0+20130313144700',
    '1.0.0-beta+exp.sha.5114f85',
    '1.0',
    '1',
    '01.0.0',
    '1.0.0-01',
    '1.0.0-',
    '1.0.0+',
    '1.0.0.0',
  ];
  for (const version of samples) {
    const accepted = (await problemsOf({ name: 'x', version })).length === 0;
    t.is(accepted, semver.valid(version) !== null, version);
  }
  // semver.valid() tolerates these by cleaning them up; a manifest should say what it means.
  for (const version of ['v1.0.0', '=1.0.0', ' 1.0.0']) {
    t.deepEqual(await problemsOf({ name: 'x', version }), [
      `/version: ${JSON.stringify(version)} is not a semver version such as 1.0.0 or 2.1.0-beta.1`,
    ]);
  }
});

import test from 'ava';
import schema from '../../src/manifests/manifest.schema.json' with { type: 'json' };
import { isWardError } from '../../src/errors/ward-error.ts';
import { assertModuleName, isModuleName, MODULE_NAME_PATTERN } from '../../src/planner/names.ts';

test('the manifest schema and names.ts share one module-name pattern', (t) => {
  t.is(schema.definitions.moduleName.pattern, MODULE_NAME_PATTERN.source);
  t.is(schema.definitions.roleName.pattern, MODULE_NAME_PATTERN.source);
});

test('module names are lowercase identifiers of at most 63 characters', (t) => {
  for (const name of ['base', 'patients', 'a', 'lab_results2', `a${'b'.repeat(62)}`])
    t.true(isModuleName(name), name);
  const bad = [
    '',
    'Base',
    '2fa',
    '_private',
    'lab-results',
    'a.b',
    '../x',
    'a b',
    `a${'b'.repeat(63)}`,
    'base\n',
  ];
  for (const name of bad) t.false(isModuleName(name), JSON.stringify(name));
  t.false(isModuleName(undefined));
  t.false(isModuleName(42));
});

test('assertModuleName returns a good name and refuses a bad one as a usage error', (t) => {
  t.is(assertModuleName('patients'), 'patients');
  const error = t.throws(() => assertModuleName('../x'));
  t.true(isWardError(error));
  if (!isWardError(error)) return;
  t.deepEqual(
    { ...error.toJSON(), exitCode: error.exitCode },
    {
      code: 'invalid_module_name',
      message: '"../x" is not a valid module name',
      hint: 'module names are lowercase letters, digits and _, starting with a letter, at most 63 characters',
      exitCode: 2,
    },
  );
});

import test from 'ava';
import { leanListRequest } from '../../src/cli/lean-route.ts';

test('modules list and modules list --json take the lean path', (t) => {
  t.deepEqual(leanListRequest(['modules', 'list'], {}), { json: false });
  t.deepEqual(leanListRequest(['modules', 'list', '--json'], {}), { json: true });
});

for (const argv of [
  [],
  ['modules'],
  ['modules:list'],
  ['modules:list', '--json'],
  ['modules', 'list', '--help'],
  ['modules', 'list', '-h'],
  ['modules', 'list', '-j'],
  ['modules', 'list', '--json', '--json'],
  ['modules', 'list', '--json=true'],
  ['modules', 'list', '--', '--json'],
  ['modules', 'list', 'extra'],
  ['--json', 'modules', 'list'],
  ['modules', 'status'],
  ['modules', 'info', 'list'],
  ['users', 'list'],
]) {
  test(`${JSON.stringify(argv)} is left to oclif`, (t) => {
    t.is(leanListRequest(argv, {}), null);
  });
}

for (const name of ['WARD_CONTENT_TYPE', 'DEBUG', 'WARD_DEBUG']) {
  test(`${name}, which changes what oclif prints, leaves the command to oclif`, (t) => {
    t.is(leanListRequest(['modules', 'list'], { [name]: 'json' }), null);
    t.deepEqual(leanListRequest(['modules', 'list'], { [name]: '' }), { json: false });
  });
}

/**
 * `npm install` runs on the machine's own Node (Ward's pinned Node 24 is one of the packages it
 * installs), so every package it installs must accept that Node, or npm prints an EBADENGINE
 * warning for each: the oldest Node npm itself supports is the floor.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import semver from 'semver';
import { ROOT } from '../src/config.ts';

/** The oldest Node the README says `npm install` may run on. */
const MACHINE_NODE_FLOOR = '20.19.0';

/**
 * Packages that want a newer Node, each only ever run by Ward's own Node 24 and named in the
 * README's explanation of the one warning npm prints for it.
 */
const EXPLAINED = ['node_modules/pg-boss'];

interface LockedPackage {
  version?: string;
  optional?: boolean;
  engines?: { node?: string };
}

test('every package npm installs accepts the machine Node npm runs on, but those the README explains', async (t) => {
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockedPackage>;
  };
  // npm skips an optional package whose engine does not fit (a platform binary), without a warning.
  const refusing = Object.entries(lock.packages)
    .filter(([name, locked]) => name !== '' && locked.optional !== true && !EXPLAINED.includes(name))
    .filter(([, locked]) => {
      const range = locked.engines?.node;
      return range !== undefined && !semver.satisfies(MACHINE_NODE_FLOOR, range);
    })
    .map(([name, locked]) => `${name}@${locked.version ?? '?'} wants Node ${locked.engines?.node ?? '?'}`);
  t.deepEqual(refusing, []);
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  t.regex(readme, new RegExp(`Node ${MACHINE_NODE_FLOOR.replace(/\./g, '\\.')} or later`));
  for (const name of EXPLAINED) t.true(readme.includes(`${path.basename(name)}, Ward's job queue`), name);
});

import test from 'ava';
import {
  backupFileName,
  backupFilePattern,
  moduleOfBackup,
  parseHeader,
  renderHeader,
} from '../../src/backup/backup-format.ts';

const header = (tables: Array<{ table: string; rows: number }>, cyclic = false) =>
  renderHeader(
    {
      created: new Date('2026-01-02T03:04:05.678Z'),
      database: 'ward',
      schema: 'public',
      server: '15.18',
      tables,
    },
    cyclic,
  );

const comments = (text: string): string[] => text.split('\n').filter((line) => line.startsWith('--'));

test('the header lists the tables in data order with their row counts, readable back', (t) => {
  const tables = [
    { table: 'patient', rows: 3 },
    { table: 'odd "name"\nwith a newline', rows: 0 },
  ];
  const text = header(tables);
  t.true(text.includes('-- table "patient" rows 3\n'));
  t.true(text.includes('-- Created 2026-01-02T03:04:05.678Z'));
  t.deepEqual(parseHeader(comments(text)), tables);
});

test('client encoding and string settings come before BEGIN, and unchecked foreign keys only for cycles', (t) => {
  const plain = header([]);
  for (const setting of ["SET client_encoding = 'UTF8';", 'SET standard_conforming_strings = on;'])
    t.true(plain.includes(`\n${setting}\n`), setting);
  t.true(plain.indexOf('SET standard_conforming_strings = on;') < plain.indexOf('BEGIN;'));
  t.false(plain.includes('session_replication_role'));
  const cyclic = header([], true);
  t.true(cyclic.indexOf('BEGIN;') < cyclic.indexOf('SET LOCAL session_replication_role = replica;'));
});

test('a file without the format line is not a backup', (t) => {
  t.is(parseHeader(['-- PostgreSQL database dump']), null);
  t.is(parseHeader([]), null);
});

test('backup file names embed the UTC time to the second and name only their module', (t) => {
  const name = backupFileName('a', new Date('2026-12-31T23:59:59.999+01:00'));
  t.is(name, 'module_a_20261231T225959Z.sql');
  t.true(backupFilePattern('a').test(name));
  t.false(backupFilePattern('a').test('module_a_b_20261231T225959Z.sql'));
  t.is(moduleOfBackup(`/app/storage/backups/${name}`), 'a');
  t.is(moduleOfBackup('/tmp/renamed.sql'), null);
  t.throws(() => backupFileName('a', new Date('nope')));
});

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { ROOT } from '../../src/config.ts';
import { closestSetting, maskSecret, SETTINGS } from '../../src/config/settings.ts';

test("the README's configuration table lists exactly the settings of the table in code, in its order and words", async (t) => {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Configuration$/m)[1] ?? '';
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const expected = SETTINGS.map((setting) => [
    `\`${setting.name}\``,
    setting.documentedDefault,
    setting.meaning,
  ]);
  t.deepEqual(
    rows,
    expected,
    `README.md's table differs from src/config/settings.ts; its rows should be:\n${expected.map((row) => `| ${row.join(' | ')} |`).join('\n')}`,
  );
});

test('every setting has one entry', (t) => {
  const names = SETTINGS.map((setting) => setting.name);
  t.deepEqual(names, [...new Set(names)]);
});

test('secrets are masked: the password of DATABASE_URL, and any *PASSWORD*, *SECRET*, *KEY* or *TOKEN*', (t) => {
  t.is(
    maskSecret('DATABASE_URL', 'postgres://ward:s3cr:et@db:5432/ward'),
    'postgres://ward:***@db:5432/ward',
  );
  t.is(maskSecret('DATABASE_URL', 'postgres://ward@db/ward'), 'postgres://ward@db/ward');
  t.is(
    maskSecret('DATABASE_URL', 'postgresql://db/ward?sslmode=require'),
    'postgresql://db/ward?sslmode=require',
  );
  t.is(maskSecret('DATABASE_URL', 'postgres://u:p@ss@h/db'), 'postgres://u:***@h/db', 'a password holding @');
  t.is(
    maskSecret('DATABASE_URL', 'postgres://u@h/db?sslmode=require&password=secret'),
    'postgres://u@h/db?sslmode=require&password=***',
    'a password in the query',
  );
  t.is(
    maskSecret('DATABASE_URL', 'not a url with pw'),
    '<unparsable URL>',
    'nothing of what cannot be parsed',
  );
  for (const name of ['SECRET_KEY', 'WARD_SMTP_PASSWORD', 'WARD_API_KEY', 'WARD_METRICS_TOKEN'])
    t.is(maskSecret(name, 'x'), '***');
  t.is(maskSecret('WARD_MODULE_PATHS', '/srv/modules'), '/srv/modules');
});

test('closestSetting names the setting a typo meant, and none for names that are not close', (t) => {
  t.is(closestSetting('WARD_MODUL_PATHS'), 'WARD_MODULE_PATHS');
  t.is(closestSetting('ward_storage_dir'), 'WARD_STORAGE_DIR');
  t.is(closestSetting('DATABASE_URI'), 'DATABASE_URL');
  t.is(closestSetting('NODE_OPTIONS'), null);
  t.is(closestSetting('PATH'), null);
});

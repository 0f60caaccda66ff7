import test from 'ava';
import { parseEnvFile } from '../../src/config/env-file.ts';
import type { WardError } from '../../src/errors/ward-error.ts';

const FILE = '/srv/storage/ward.env';

test('KEY=value lines, comments, blanks, export and quotes read as dotenv reads them, with line numbers', (t) => {
  const text = [
    '# Ward settings',
    '',
    'PORT=9000',
    '  export WARD_MODULE_PATHS = /srv/modules:/opt/more  # two folders',
    'DATABASE_URL="postgres://ward:p#ss@db/ward" # quoted: the # is kept',
    "SECRET_KEY='single quoted'",
    'WARD_JSON_LIMIT=',
    'LOG_LEVEL=debug\r',
    'WARD_NOTE= # only a comment: empty',
  ].join('\n');
  t.deepEqual(parseEnvFile(text, FILE), [
    { key: 'PORT', value: '9000', line: 3 },
    { key: 'WARD_MODULE_PATHS', value: '/srv/modules:/opt/more', line: 4 },
    { key: 'DATABASE_URL', value: 'postgres://ward:p#ss@db/ward', line: 5 },
    { key: 'SECRET_KEY', value: 'single quoted', line: 6 },
    { key: 'WARD_JSON_LIMIT', value: '', line: 7 },
    { key: 'LOG_LEVEL', value: 'debug', line: 8 },
    { key: 'WARD_NOTE', value: '', line: 9 },
  ]);
});

test('a line the dotenv parser would skip or cut short is an error naming the file and line', (t) => {
  const cases: Array<[string, string]> = [
    [
      'PORT 9000',
      `${FILE}:2: expected KEY=value, found a line starting "PORT" (the rest is not shown: it may hold a secret)`,
    ],
    [
      '1PORT=9000',
      `${FILE}:2: expected KEY=value, found a line starting "1PORT" (the rest is not shown: it may hold a secret)`,
    ],
    [
      'WARD-MODULE-PATHS=/srv',
      `${FILE}:2: expected KEY=value, found a line starting "WARD-MODULE-PATHS" (the rest is not shown: it may hold a secret)`,
    ],
    [
      'DATABASE_URL postgres://u:pw@db/ward',
      `${FILE}:2: expected KEY=value, found a line starting "DATABASE_URL" (the rest is not shown: it may hold a secret)`,
    ],
    [
      'postgres://u:pw@db/ward',
      `${FILE}:2: expected KEY=value, found a line that does not start with a name (not shown: it may hold a secret)`,
    ],
    [
      'SECRET_KEY=#abc',
      `${FILE}:2: SECRET_KEY: an unquoted value cannot start with # (it would be read as a comment, leaving the value empty): quote the value`,
    ],
    [
      'DATABASE_URL="postgres://db/ward',
      `${FILE}:2: DATABASE_URL: the " quote is not closed (a value cannot span lines)`,
    ],
    ["SECRET_KEY='it's'", `${FILE}:2: SECRET_KEY: text after the closing ' quote`],
    [
      'DATABASE_URL=postgres://ward:p#ss@db/ward',
      `${FILE}:2: DATABASE_URL: a # in an unquoted value starts a comment and cuts the value short: quote the value`,
    ],
  ];
  for (const [line, message] of cases) {
    const error = t.throws<WardError>(() => parseEnvFile(`PORT=1\n${line}\n`, FILE));
    t.is(error?.message, message);
    t.is(error?.code, 'invalid_settings_file');
    t.regex(error?.hint ?? '', /one setting per line as KEY=value/);
  }
});

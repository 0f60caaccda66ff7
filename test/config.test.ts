import test from 'ava';
import { loadConfig, parsePort, parseSwitch } from '../src/config.ts';
import { checkDatabaseUrl } from '../src/db/connection.ts';

test('parsePort: unset is 8080, 0 to 65535 pass, anything else is refused with the variable and the fix', (t) => {
  t.is(parsePort(null), 8080);
  t.is(parsePort('0'), 0);
  t.is(parsePort('9000'), 9000);
  t.is(parsePort(' 65535 '), 65_535);
  for (const bad of ['abc', '65536', '-1', '80.5', '1e3', '0x50', '123456'])
    t.throws(() => parsePort(bad), { message: `PORT=${JSON.stringify(bad)} is not a TCP port` });
});

test('parseSwitch: the usual spellings of on and off, the default when unset, anything else refused', (t) => {
  for (const on of ['1', 'true', 'YES', 'On']) t.true(parseSwitch('X', on, false));
  for (const off of ['0', 'false', 'no', 'OFF']) t.false(parseSwitch('X', off, true));
  t.true(parseSwitch('X', null, true));
  t.false(parseSwitch('X', null, false));
  const error = t.throws(() => parseSwitch('WARD_TRUST_PROXY', 'ture', false));
  t.is(error?.message, 'WARD_TRUST_PROXY="ture" is neither on nor off');
  t.regex((error as Error & { hint: string }).hint, /unset, it is off/);
});

test('loadConfig keeps settings as given: an empty variable counts as unset', (t) => {
  const config = loadConfig({ PORT: '', WARD_TRUST_PROXY: 'yes', WARD_SPARE_BACKEND: '' });
  t.is(config.port, null);
  t.is(config.trustProxy, 'yes');
  t.is(config.spareBackend, null);
});

test('checkDatabaseUrl: PostgreSQL URLs pass as given; anything else says what is wrong', (t) => {
  const fine = 'postgres://ward:secret@db:5432/ward?sslmode=disable';
  t.is(checkDatabaseUrl(fine), fine);
  t.is(checkDatabaseUrl('postgresql://db/ward'), 'postgresql://db/ward');
  t.throws(() => checkDatabaseUrl('ward'), { message: 'DATABASE_URL is not a URL' });
  t.throws(() => checkDatabaseUrl('http://db/ward'), {
    message: 'DATABASE_URL is a http URL, not a PostgreSQL one',
  });
  t.throws(() => checkDatabaseUrl('postgres:///ward'), { message: 'DATABASE_URL names no host' });
});

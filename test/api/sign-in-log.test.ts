/**
 * Sign-in outcomes reach the backend log as security events (who, from where, why refused); the
 * password field never does, nor a typed "username" that cannot be one (often a misplaced password).
 */
import test from 'ava';
import { pino } from 'pino';
import { postgresSignInThrottle } from '../../src/auth/throttle-store.ts';
import { PASSWORD, addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

test('sign-in, failure, throttling and sign-out are logged; the passwords sent are not', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'ada', ['admin']);
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const { base } = await startApp(t, knex, {
    overrides: { logger, signInThrottle: postgresSignInThrottle(knex, { now: () => 0 }) },
  });
  const login = (username: string, password: string) =>
    call(base, 'POST', '/api/v1/auth/login', { json: { username, password } });

  const session = await signIn(base, 'Ada');
  t.is((await call(base, 'POST', '/api/v1/auth/logout', { token: session.token })).status, 204);
  t.is((await login(PASSWORD, 'a password typed where the username goes')).status, 401);
  for (let i = 0; i < 5; i++) t.is((await login('ada', 'not the password')).status, 401);
  t.is((await login('ada', PASSWORD)).status, 429);

  const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const pick = ({ msg, username, userId, limit }: Record<string, unknown>) => ({
    msg,
    username,
    userId,
    limit,
  });
  t.deepEqual(events.filter((event) => /sign/.test(String(event.msg))).map(pick), [
    { msg: 'signed in', username: 'ada', userId: id, limit: undefined },
    { msg: 'signed out', username: 'ada', userId: id, limit: undefined },
    { msg: 'sign-in failed', username: '(not a valid username)', userId: undefined, limit: undefined },
    ...Array.from({ length: 5 }, () => ({
      msg: 'sign-in failed',
      username: 'ada',
      userId: undefined,
      limit: undefined,
    })),
    { msg: 'sign-in throttled', username: 'ada', userId: undefined, limit: 'pair' },
  ]);
  t.true(events.every((event) => typeof event.ip === 'string' || !/sign/.test(String(event.msg))));
  const log = lines.join('');
  t.false(log.includes(PASSWORD), 'a password reached the log');
  t.false(log.includes('not the password'));
});

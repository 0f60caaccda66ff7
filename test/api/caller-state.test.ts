/**
 * Ward's record of who calls, with the raw credential, is not on `ctx.state`: a module handler
 * shares the request's ctx and sees the caller only through `sdk.http.caller`.
 */
import test from 'ava';
import { addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

test('a module handler finds neither the caller nor the credential on ctx.state', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex);
  const { token, cookie, csrfToken } = await signIn(base, 'ada');
  for (const [label, options] of [
    ['bearer', { token }],
    ['cookie', { cookie, csrf: csrfToken }],
  ] as const) {
    const answer = await call(base, 'GET', '/api/v1/intake/state', options);
    t.is(answer.status, 200, `${label}: ${answer.text}`);
    const { state } = answer.body as { state: string };
    t.false(state.includes(token), `${label}: the secret is not on ctx.state`);
    t.false(state.includes('caller'), `${label}: ${state}`);
    t.false(state.includes('ada'), `${label}: ${state}`);
  }
  const whoami = await call(base, 'GET', '/api/v1/intake/whoami', { token });
  t.deepEqual(whoami.body, { username: 'ada' });
});

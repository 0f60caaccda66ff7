import test from 'ava';
import { addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

async function admin(t: Parameters<typeof installedDatabase>[0]) {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const running = await startApp(t, knex);
  const { token } = await signIn(running.base, 'ada');
  return { ...running, token };
}

test('a route answers its path with one trailing slash and in any letter case, and HEAD as GET without a body', async (t) => {
  const { base, token } = await admin(t);
  for (const pathname of ['/api/v1/me', '/api/v1/me/', '/API/V1/Me']) {
    const answer = await call(base, 'GET', pathname, { token });
    t.is(answer.status, 200, pathname);
    t.like(answer.body, { user: { username: 'ada' } });
  }
  t.is((await call(base, 'GET', '/api/v1/me//', { token })).status, 404);
  const head = await call(base, 'HEAD', '/api/v1/me', { token });
  t.is(head.status, 200);
  t.is(head.text, '');
  t.truthy(head.headers.get('x-request-id'));
});

test('path parameters reach the handler decoded', async (t) => {
  const { base, token } = await admin(t);
  const answer = await call(base, 'GET', '/api/v1/intake/jobs/%39%39%39', { token });
  t.is(answer.status, 404);
  t.like(answer.body, { error: { message: 'no intake job 999' } });
});

test('OPTIONS lists the methods a path allows; a method no route has anywhere gets 501 in the error shape', async (t) => {
  const { base, token } = await admin(t);
  const options = await call(base, 'OPTIONS', '/api/v1/me', { token });
  t.is(options.status, 200);
  t.is(options.headers.get('allow'), 'HEAD, GET');
  t.is(options.text, '');
  t.is((await call(base, 'OPTIONS', '/api/v1/nothing/here', { token })).status, 404);
  const propfind = await call(base, 'PROPFIND', '/api/v1/me', { token });
  t.is(propfind.status, 501);
  t.is(propfind.headers.get('allow'), 'HEAD, GET');
  t.deepEqual(propfind.body, {
    error: {
      code: 'not_implemented',
      message: 'PROPFIND /api/v1/me failed',
      hint: 'use one of the methods in the Allow header',
    },
  });
});

test('a path that exists only for other methods gets 405 naming them, before any credential is asked for', async (t) => {
  const { base } = await admin(t);
  const answer = await call(base, 'PUT', '/api/v1/auth/login');
  t.is(answer.status, 405);
  t.is(answer.headers.get('allow'), 'POST');
  t.like(answer.body, {
    error: { code: 'method_not_allowed', message: 'PUT is not allowed on /api/v1/auth/login' },
  });
});

/**
 * JSON bodies over HTTP, on the real app: bytes that are not UTF-8 are refused (400, never stored
 * as U+FFFD), a key given twice is refused, and the strings a module receives are NFC, whichever
 * form the client sent.
 */
import test from 'ava';
import { addUser, call, installedDatabase, signIn, startApp, type Answer } from '../helpers/app.ts';

const errorOf = (answer: Answer) =>
  (answer.body as { error: { code: string; message: string; hint: string } }).error;

async function admin(t: Parameters<typeof installedDatabase>[0]) {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const running = await startApp(t, knex);
  const { token } = await signIn(running.base, 'ada');
  const jobs = async () => (await knex('intake_job').orderBy('id').pluck('title')) as string[];
  return { ...running, token, jobs };
}

const post = (base: string, token: string, body: Buffer | string) =>
  call(base, 'POST', '/api/v1/intake/jobs', { token, body, headers: { 'content-type': 'application/json' } });

test('a Latin-1 body is 400 invalid_utf8 naming the byte and its offset, and nothing is stored', async (t) => {
  const { base, token, jobs } = await admin(t);
  const answer = await post(
    base,
    token,
    Buffer.concat([Buffer.from('{"title": "Jos'), Buffer.from([0xe9]), Buffer.from('"}')]),
  );
  t.is(answer.status, 400);
  t.deepEqual(errorOf(answer), {
    code: 'invalid_utf8',
    message:
      'the request body is not valid UTF-8: byte 0xE9 at byte offset 14 does not begin a valid UTF-8 character',
    hint: 'encode the body as UTF-8 (Latin-1 or Windows-1252 text is the usual cause) and send it again',
  });
  t.deepEqual(await jobs(), []);
});

test('a body cut inside a character is 400 invalid_utf8, not a U+FFFD', async (t) => {
  const { base, token, jobs } = await admin(t);
  const euro = Buffer.from('€');
  const answer = await post(base, token, Buffer.concat([Buffer.from('{"title": "'), euro.subarray(0, 2)]));
  t.is(answer.status, 400);
  t.is(
    errorOf(answer).message,
    'the request body is not valid UTF-8: it ends inside the character that starts at byte offset 11',
  );
  t.deepEqual(await jobs(), []);
});

test('strings reach the module in NFC: a decomposed accent is stored precomposed', async (t) => {
  const { base, token, jobs } = await admin(t);
  const answer = await post(base, token, JSON.stringify({ title: 'Jose\u0301' }));
  t.is(answer.status, 201, answer.text);
  t.is((answer.body as { title: string }).title, 'Jos\u00e9');
  t.deepEqual(await jobs(), ['Jos\u00e9']);
});

test('keys are NFC too: the schema sees the precomposed key', async (t) => {
  const { base, token, jobs } = await admin(t);
  const answer = await post(base, token, JSON.stringify({ title: 'x', 'Jose\u0301': 1 }));
  t.is(answer.status, 422);
  t.regex(errorOf(answer).message, /^the request body is invalid at \/Jos\u00e9: unknown field/);
  t.deepEqual(await jobs(), []);
});

test('a lone surrogate escape is 400 invalid_json naming the field, and nothing is stored', async (t) => {
  const { base, token, jobs } = await admin(t);
  const answer = await post(base, token, '{"title": "ab\\ud83d"}');
  t.is(answer.status, 400);
  t.deepEqual(errorOf(answer), {
    code: 'invalid_json',
    message: 'the request body holds a lone surrogate \\uD83D at /title, which is no character',
    hint: 'send characters as UTF-8, or escape one beyond U+FFFF as a pair of \\u escapes (high, then low)',
  });
  t.deepEqual(await jobs(), []);
});

test('a key given twice is 400 duplicate_key naming it, and nothing is stored', async (t) => {
  const { base, token, jobs } = await admin(t);
  const answer = await post(base, token, '{"title": "first", "title": "second"}');
  t.is(answer.status, 400);
  t.deepEqual(errorOf(answer), {
    code: 'duplicate_key',
    message: 'the request body has the key "title" twice at /',
    hint: 'send each key once: JSON keeps only the last value of a repeated key, which may not be the one meant',
  });
  t.deepEqual(await jobs(), []);
});

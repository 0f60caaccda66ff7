/**
 * Attacks on sign-in, and a rush of it, against the real backend process over the network:
 * guessing the admin's password from one address does not lock its owner out at another; a flood
 * of failing sign-ins waits its turn to be checked (503, Retry-After once the wait runs out)
 * instead of starving document downloads, which share libuv's thread pool with password hashing;
 * a whole shift signing in at once from one address waits briefly, and every one gets in.
 */
import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { hashPassword } from '../../src/auth/password.ts';
import { createUser } from '../../src/auth/users.ts';
import { PASSWORD, addUser, call, type Answer } from '../helpers/app.ts';
import { scratchDir } from '../helpers/cli.ts';
import { serve } from '../helpers/serve.ts';
import { clinicDatabase, insertPatients } from '../modules/helpers.ts';

const WRONG = 'not the password';

/** `ward backend` behind a trusted proxy, so that each request can say its client's address. */
async function backend(t: ExecutionContext, url: string) {
  const served = await serve({
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir(),
    WARD_TRUST_PROXY: 'on',
    LOG_LEVEL: 'error',
  });
  t.teardown(() => served.stop());
  const login = (username: string, password: string, address: string) =>
    call(served.base, 'POST', '/api/v1/auth/login', {
      json: { username, password },
      headers: { 'x-forwarded-for': address },
    });
  return { base: served.base, login };
}

test('while someone keeps guessing the admin password from one address, the admin signs in from another', async (t) => {
  const { url, knex } = await clinicDatabase(t);
  await addUser(knex, 'admin', ['admin']);
  const { login } = await backend(t, url);

  // Guessing as fast as the answers come, so that a wait per username alone would never end.
  const guesses: number[] = [];
  let guessing = true;
  let refused: () => void = () => undefined;
  const firstRefusal = new Promise<void>((resolve) => (refused = resolve));
  const guesser = (async () => {
    while (guessing) {
      const status = (await login('admin', WRONG, '203.0.113.66')).status;
      guesses.push(status);
      if (status === 429) refused();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  await firstRefusal;
  const owner = await login('admin', PASSWORD, '192.0.2.10');
  guessing = false;
  await guesser;

  t.is(owner.status, 200, owner.text);
  t.like(owner.body, { user: { username: 'admin' } });
  t.deepEqual(guesses.slice(0, 5), [401, 401, 401, 401, 401], 'five free guesses');
  t.true(guesses.includes(429), 'then the guessing address waits');
  t.deepEqual(
    guesses.filter((status) => status !== 401 && status !== 429),
    [],
  );
});

const WAVES = 3;
const PER_WAVE = 50;
const WAVE_GAP_MS = 1_500;

test('a flood of failing sign-ins waits its turn to be checked, 503 with Retry-After for any whose wait runs out, and a download during it still answers', async (t) => {
  const { url, knex } = await clinicDatabase(t);
  const userId = await addUser(knex, 'clinician', ['clinician']);
  const { secret } = await createApiToken(knex, { userId, role: null, name: null, expiresAt: null });
  const [patient] = await insertPatients(knex, [{ mrn: 'A1', family_name: 'Ada', given_name: 'A' }]);
  const { base, login } = await backend(t, url);
  const content = randomBytes(1024 * 1024);
  const uploaded = await call(
    base,
    'POST',
    `/api/v1/documents/patients/${patient}/documents?title=scan.bin`,
    {
      token: secret,
      body: content,
      headers: { 'content-type': 'application/octet-stream' },
    },
  );
  t.is(uploaded.status, 201, uploaded.text);
  const download = `${base}/api/v1/documents/documents/${(uploaded.body as { id: number }).id}/content`;

  // Each sign-in from its own address and for its own username: no throttle stops any of them.
  let sent = 0;
  const wave = () =>
    Array.from({ length: PER_WAVE }, () => {
      sent++;
      return login(`guess${sent}`, WRONG, `10.0.${sent >> 8}.${sent & 255}`);
    });
  const flood: Promise<Answer>[] = [];
  let floodEnded = 0;
  const flooding = (async () => {
    for (let i = 0; i < WAVES; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, WAVE_GAP_MS));
      flood.push(...wave());
    }
    const answers = await Promise.all(flood);
    floodEnded = performance.now();
    return answers;
  })();
  // The first wave is on its way: download while it is being checked.
  await new Promise((resolve) => setImmediate(resolve));
  const response = await fetch(download, { headers: { authorization: `Bearer ${secret}` } });
  const body = Buffer.from(await response.arrayBuffer());
  const downloaded = performance.now();
  const answers = await flooding;

  t.is(response.status, 200);
  t.is(createHash('sha256').update(body).digest('hex'), createHash('sha256').update(content).digest('hex'));
  t.true(downloaded < floodEnded, 'the download answered while the flood was still being answered');
  t.is(answers.length, WAVES * PER_WAVE);
  const busy = answers.filter((answer) => answer.status === 503);
  t.true(
    answers.some((answer) => answer.status === 401),
    'the sign-ins within the bound are checked',
  );
  t.deepEqual(
    answers.filter((answer) => answer.status !== 401 && answer.status !== 503).map((answer) => answer.text),
    [],
  );
  for (const answer of busy) {
    t.is(answer.headers.get('retry-after'), '1');
    t.like(answer.body, { error: { code: 'sign_in_busy' } });
  }
  const after = await login('clinician', PASSWORD, '192.0.2.10');
  t.is(after.status, 200, `after the flood, sign-in works: ${after.text}`);
});

test('a whole shift signing in at once from one address (30 at 8:00) waits its turn: every one gets in, none gets 503', async (t) => {
  const { url, knex } = await clinicDatabase(t);
  // One hash for all: 30 hashes in the test would only slow it down.
  const passwordHash = await hashPassword(PASSWORD);
  const staff = Array.from({ length: 30 }, (_, i) => `nurse${i}`);
  for (const username of staff) await createUser(knex, { username, roles: ['clinician'], passwordHash });
  const { login } = await backend(t, url);
  const started = performance.now();
  const answers = await Promise.all(staff.map((username) => login(username, PASSWORD, '203.0.113.7')));
  t.log(`30 sign-ins answered in ${Math.round(performance.now() - started)} ms`);
  t.deepEqual(
    answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.text}`),
    [],
  );
  t.deepEqual(
    answers.map((answer) => (answer.body as { user: { username: string } }).user.username),
    staff,
  );
});

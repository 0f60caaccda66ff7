/**
 * A session ends after the idle time without a request, whichever backend served its last one,
 * as well as 12 h after sign-in; every request moves the idle end on.
 */
import test from 'ava';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { createAuthenticator, idleExpired, SESSION_TOUCH_MS } from '../../src/auth/authenticator.ts';
import { buildPermissionMap } from '../../src/auth/permissions.ts';
import { PrincipalCache } from '../../src/auth/principal-cache.ts';
import { createSession } from '../../src/auth/sessions.ts';
import { hashSecret } from '../../src/auth/tokens.ts';
import { silentLogger } from '../../src/logger.ts';
import { addUser, installedDatabase } from '../helpers/app.ts';

const IDLE = 60_000;
const MAP = buildPermissionMap([{ name: 'base', manifest: { role_permissions: { admin: ['*'] } } }], {});

/** An authenticator with its own cache (as another backend has) and a clock the test moves. */
function backend(knex: Knex, clock: { now: number }) {
  const cache = new PrincipalCache({ now: () => clock.now, ttlMs: 100 * IDLE });
  cache.setEnabled(true);
  return createAuthenticator({
    knex,
    map: MAP,
    cache,
    logger: silentLogger,
    idleMs: IDLE,
    now: () => clock.now,
  });
}

async function lastSeen(knex: Knex, secret: string): Promise<number> {
  const row = (await knex('base_session')
    .where({ id_hash: hashSecret(secret) })
    .first('last_seen_at')) as { last_seen_at: Date };
  return row.last_seen_at.getTime();
}

/** Waits for the off-path write of a session's use to reach the database. */
async function lastSeenReaches(knex: Knex, secret: string, at: number): Promise<void> {
  while ((await lastSeen(knex, secret)) < at) await new Promise((resolve) => setTimeout(resolve, 10));
}

test('idleExpired: the later of the two last requests counts, and the end is exactly idleMs after it', (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1e12 }),
      fc.option(fc.integer({ min: 0, max: 1e12 }), { nil: undefined }),
      fc.integer({ min: 1, max: 1e9 }),
      fc.integer({ min: 0, max: 2e9 }),
      (lastSeenAt, seenHere, idleMs, after) => {
        const last = Math.max(lastSeenAt, seenHere ?? 0);
        t.is(idleExpired(lastSeenAt, seenHere, last + after, idleMs), after >= idleMs);
      },
    ),
  );
});

test('a session used within the idle time lives on; left idle for it, it is refused', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'bob', ['admin']);
  const clock = { now: Date.now() };
  const session = await createSession(knex, id, { now: clock.now, idleMs: IDLE });
  if (session === null) return t.fail('no session');
  const auth = backend(knex, clock);
  for (let step = 0; step < 5; step++) {
    clock.now += IDLE - 1;
    t.truthy(await auth.authenticate(session.secret), `request ${step} after ${IDLE - 1} ms idle`);
  }
  clock.now += IDLE;
  t.is(await auth.authenticate(session.secret), null, 'idle for the whole idle time');
  t.is(await auth.authenticate(session.secret), null, 'and it stays refused');
});

test("another backend's request counts: a backend whose own view is idle reads the database again", async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'bob', ['admin']);
  const clock = { now: Date.now() };
  const session = await createSession(knex, id, { now: clock.now, idleMs: IDLE });
  if (session === null) return t.fail('no session');
  const [a, b] = [backend(knex, clock), backend(knex, clock)];
  t.truthy(await a.authenticate(session.secret), 'a caches it');
  clock.now += IDLE - SESSION_TOUCH_MS;
  t.truthy(await b.authenticate(session.secret), 'b serves a request');
  await lastSeenReaches(knex, session.secret, clock.now);
  clock.now += SESSION_TOUCH_MS + 1;
  t.truthy(await a.authenticate(session.secret), "a sees b's request, so the session lives");
});

test('an idle session is refused even before 12 h, and a new sign-in removes it', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'bob', ['admin']);
  const clock = { now: Date.now() };
  const old = await createSession(knex, id, { now: clock.now, idleMs: IDLE });
  if (old === null) return t.fail('no session');
  clock.now += IDLE;
  t.is(await backend(knex, clock).authenticate(old.secret), null);
  await createSession(knex, id, { now: clock.now, idleMs: IDLE });
  t.is(
    await knex('base_session')
      .where({ id_hash: hashSecret(old.secret) })
      .first(),
    undefined,
  );
  t.is(((await knex('base_session').count('* as n')) as Array<{ n: string }>)[0]?.n, '1');
});

/** The bounds on password hashing: a queue two hashes wide, and admissions for sign-ins. */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import test from 'ava';
import { admissions, hashQueue } from '../../src/auth/hash-limit.ts';
import { CURRENT_PARAMS, hashPassword, verifyPassword } from '../../src/auth/password.ts';

/** A hash that runs until the test ends it. */
function pending(log: string[], name: string) {
  let end: (fail?: boolean) => void = () => undefined;
  const hash = () => {
    log.push(`start ${name}`);
    return new Promise<string>((resolve, reject) => {
      end = (fail = false) => (fail ? reject(new Error(name)) : resolve(name));
    });
  };
  return { hash, end: (fail?: boolean) => end(fail) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('at most two hashes run at once; the others start in the order they came as places free up', async (t) => {
  const queue = hashQueue(2);
  const log: string[] = [];
  const hashes = ['a', 'b', 'c', 'd', 'e'].map((name) => pending(log, name));
  const results = hashes.map(({ hash }) => queue.run(hash));
  await turn();
  t.deepEqual(log, ['start a', 'start b']);
  hashes[1]!.end();
  await turn();
  t.deepEqual(log, ['start a', 'start b', 'start c']);
  hashes[0]!.end(true);
  await turn();
  t.deepEqual(log, ['start a', 'start b', 'start c', 'start d'], 'a failed hash gives its place too');
  for (const { end } of hashes.slice(2)) end();
  await turn();
  t.deepEqual(log, ['start a', 'start b', 'start c', 'start d', 'start e']);
  hashes[4]!.end();
  await t.throwsAsync(results[0]!, { message: 'a' });
  t.deepEqual(await Promise.all(results.slice(1)), ['b', 'c', 'd', 'e']);
});

test('a queue left idle starts the next hash at once', async (t) => {
  const queue = hashQueue(1);
  t.is(await queue.run(async () => 'first'), 'first');
  t.is(await queue.run(async () => 'second'), 'second');
});

test('admissions: as many as there are places, then none until one is given back, once', (t) => {
  const places = admissions(2);
  const first = places.enter();
  const second = places.enter();
  t.not(first, null);
  t.not(second, null);
  t.is(places.enter(), null, 'all places taken');
  first?.();
  first?.();
  const third = places.enter();
  t.not(third, null, 'a place given back');
  t.is(places.enter(), null, 'giving the same place back twice frees it once');
  second?.();
  third?.();
  t.not(places.enter(), null);
  t.is(admissions(0).enter(), null);
});

test('every scrypt in the process goes through the queue: of 16 hashes and checks at once, at most 2 run at any time', async (t) => {
  const original = crypto.scrypt;
  let running = 0;
  let most = 0;
  const counting = (...args: unknown[]) => {
    running++;
    most = Math.max(most, running);
    const callback = args.pop() as (error: Error | null, key: Buffer) => void;
    (original as (...rest: unknown[]) => void)(...args, (error: Error | null, key: Buffer) => {
      running--;
      callback(error, key);
    });
  };
  crypto.scrypt = counting as typeof crypto.scrypt;
  syncBuiltinESMExports();
  t.teardown(() => {
    crypto.scrypt = original;
    syncBuiltinESMExports();
  });
  const cheap = { ...CURRENT_PARAMS, ln: 10 };
  const stored = await hashPassword('correct horse battery', cheap);
  const work = Array.from({ length: 16 }, (_, i) =>
    i % 2 === 0 ? hashPassword(`password ${i}`, cheap) : verifyPassword('correct horse battery', stored),
  );
  const results = await Promise.all(work);
  t.is(most, 2);
  t.true(results.filter((result) => result === true).length === 8, 'the checks still verify');
});

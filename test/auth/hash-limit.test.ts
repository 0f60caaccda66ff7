/** The bounds on password hashing: a queue two hashes wide, and admissions for sign-ins. */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import test from 'ava';
import fc from 'fast-check';
import { DEVICE_CLIENT, admissions, hashQueue } from '../../src/auth/hash-limit.ts';
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

const NO_WAIT = { waitMs: 0 };

test('admissions: as many as there are places, then none until one is given back, once', async (t) => {
  const places = admissions(2, NO_WAIT);
  const first = await places.enter('10.0.0.1');
  const second = await places.enter('10.0.0.2');
  t.not(first, null);
  t.not(second, null);
  t.is(await places.enter('10.0.0.3'), null, 'all places taken');
  first?.();
  first?.();
  const third = await places.enter('10.0.0.3');
  t.not(third, null, 'a place given back');
  t.is(await places.enter('10.0.0.4'), null, 'giving the same place back twice frees it once');
  second?.();
  third?.();
  t.not(await places.enter('10.0.0.4'), null);
  t.is(await admissions(0, NO_WAIT).enter('10.0.0.1'), null);
});

test('admissions: one client address holds at most two places, so others still get in; IPv6 counts per /64', async (t) => {
  const places = admissions(10, NO_WAIT);
  const held = [await places.enter('203.0.113.9'), await places.enter('203.0.113.9')];
  t.false(held.includes(null));
  t.is(await places.enter('203.0.113.9'), null, 'a third from the same address');
  t.is(await places.enter('::ffff:203.0.113.9'), null, 'the same address, IPv4-mapped');
  t.not(await places.enter('198.51.100.7'), null, 'another address gets in');
  t.not(await places.enter('2001:db8:1:2::1'), null);
  t.not(await places.enter('2001:db8:1:2::2'), null);
  t.is(await places.enter('2001:db8:1:2:ffff::3'), null, 'a third from the same /64');
  t.not(await places.enter('2001:db8:1:3::1'), null, 'the next /64');
  held[0]?.();
  t.not(await places.enter('203.0.113.9'), null, 'a place given back is the address’s again');
});

test('admissions: with no place free a request waits, and gets the place given back first', async (t) => {
  const places = admissions(1);
  const first = await places.enter('10.0.0.1');
  const log: string[] = [];
  const waiting = ['10.0.0.2', '10.0.0.3'].map((client) =>
    places.enter(client).then((leave) => {
      log.push(client);
      return leave;
    }),
  );
  await turn();
  t.deepEqual(log, [], 'both wait');
  first?.();
  const second = await waiting[0]!;
  t.deepEqual(log, ['10.0.0.2'], 'the one that came first');
  second?.();
  t.not(await waiting[1]!, null);
  t.deepEqual(log, ['10.0.0.2', '10.0.0.3']);
});

test('admissions: places go to the waiting clients in turn, so a client with many requests waiting delays another by one turn', async (t) => {
  const places = admissions(1, { perClient: 1 });
  const order: string[] = [];
  let leave = await places.enter('192.0.2.1');
  const enter = (client: string, name: string) =>
    places.enter(client).then((given) => {
      order.push(name);
      return given;
    });
  const flood = Array.from({ length: 5 }, (_, i) => enter('203.0.113.66', `flood ${i}`));
  await turn();
  const owner = enter('192.0.2.10', 'owner');
  await turn();
  for (const next of [flood[0]!, owner, ...flood.slice(1)]) {
    leave?.();
    leave = await next;
  }
  leave?.();
  t.deepEqual(order, ['flood 0', 'owner', 'flood 1', 'flood 2', 'flood 3', 'flood 4']);
});

test('admissions: a wait that runs out gets no place, nor does a request beyond the waiting room', async (t) => {
  const places = admissions(1, { waitMs: 1, waiting: 3, waitingPerClient: 2 });
  const held = await places.enter('10.0.0.1');
  const waits = [places.enter('10.0.0.2'), places.enter('10.0.0.2'), places.enter('10.0.0.3')];
  t.is(await places.enter('10.0.0.2'), null, "beyond the client's share of the waiting room");
  t.is(await places.enter('10.0.0.4'), null, 'beyond the waiting room');
  t.deepEqual(await Promise.all(waits), [null, null, null], 'the waits ran out');
  held?.();
  t.not(await places.enter('10.0.0.2'), null, 'a place is free again, and nobody waits for it');
});

/** Timers that run only when the test says the time has come. */
function manualTimers() {
  const pending = new Set<{ run: () => void; ms: number }>();
  return {
    timers: {
      set: (run: () => void, ms: number) => {
        const timer = { run, ms };
        pending.add(timer);
        return timer;
      },
      clear: (timer: unknown) => void pending.delete(timer as { run: () => void; ms: number }),
    },
    /** Runs every timer set so far and not cleared: as if its time had passed. */
    expire: () => {
      for (const timer of [...pending]) {
        pending.delete(timer);
        timer.run();
      }
    },
    count: () => pending.size,
  };
}

test('admissions: a line that keeps moving waits as long as it takes; one that stops for the wait is refused', async (t) => {
  const clock = manualTimers();
  const places = admissions(1, { timers: clock.timers });
  let leave = await places.enter('203.0.113.7');
  const shift = Array.from({ length: 5 }, () => places.enter('203.0.113.7'));
  t.is(clock.count(), 1, 'one timer for the whole line');
  for (const next of shift) {
    leave?.();
    leave = await next;
    t.not(leave, null, 'the line moved: its wait starts again');
  }
  t.is(clock.count(), 0, 'nobody waits');
  const stuck = [places.enter('203.0.113.7'), places.enter('203.0.113.7')];
  const other = places.enter('198.51.100.1');
  clock.expire();
  t.deepEqual(await Promise.all([...stuck, other]), [null, null, null], 'no turn came for the wait');
  leave?.();
  t.not(await places.enter('198.51.100.1'), null, 'the place is free, and nobody waits for it');
});

test('admissions: a trusted browser waits in a line of its own, not behind its address, and before the untrusted', async (t) => {
  const places = admissions(3, { perClient: 2 });
  const flood = [await places.enter('203.0.113.66'), await places.enter('203.0.113.66')];
  const queued = places.enter('203.0.113.66');
  const trusted = await places.enter(`${DEVICE_CLIENT}abc`);
  t.not(trusted, null, "the free place goes to the browser, not to its address's third request");
  const others = ['10.0.0.1', '10.0.0.2'].map((client) => places.enter(client));
  const second = places.enter(`${DEVICE_CLIENT}def`);
  flood[0]?.();
  t.not(await second, null, 'a trusted browser that came after others goes before them');
  trusted?.();
  t.not(await queued, null, "then the address's request: it has waited longest");
  flood[1]?.();
  t.not(await others[0]!, null);
});

test('property: however clients come and go, no client ever holds more than two places, nor all clients more than the total', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.tuple(
          fc.boolean(),
          fc.constantFrom('10.0.0.1', '10.0.0.2', '2001:db8::1', '2001:db8::2', '2001:db8:0:1::1'),
        ),
      ),
      async (steps) => {
        const places = admissions(3, NO_WAIT);
        const held: Array<{ client: string; leave: () => void }> = [];
        const key = (client: string) => (client.startsWith('2001:db8::') ? '2001:db8::/64' : client);
        for (const [enter, client] of steps) {
          if (enter) {
            const leave = await places.enter(client);
            const mine = held.filter((h) => key(h.client) === key(client)).length;
            if ((leave === null) !== (held.length >= 3 || mine >= 2)) return false;
            if (leave !== null) held.push({ client, leave });
          } else held.shift()?.leave();
        }
        return true;
      },
    ),
  );
  t.pass();
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

/**
 * The sign-in throttle's policy, on a fake clock, over counts kept in a Map the way the store keeps
 * them in rows (one per key, deleted once it counts nothing).
 */
import test from 'ava';
import fc from 'fast-check';
import {
  decide,
  deviceFailed,
  deviceWait,
  expiresAtMs,
  signInKeys,
  withdraw,
  type Failures,
  type SignInCounts,
  type SignInKeys,
  type SignInLimit,
} from '../../src/auth/throttle.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const KINDS = ['pair', 'user', 'address', 'network'] as const;

/** The policy over rows in a Map, as the store applies it to its table. */
function throttle() {
  const clock = { now: 0 };
  const rows = new Map<string, Failures | number[]>();
  const read = (keys: SignInKeys): SignInCounts => {
    const times = (key: string | null) => (key === null ? [] : ((rows.get(key) as number[]) ?? []));
    return {
      pair: (rows.get(keys.pair) as Failures | undefined) ?? null,
      user: times(keys.user),
      address: times(keys.address),
      network: times(keys.network),
    };
  };
  const write = (keys: SignInKeys, counts: SignInCounts) => {
    for (const kind of KINDS) {
      const key = keys[kind];
      const value = kind === 'pair' ? counts.pair : counts[kind];
      if (key === null) continue;
      if (value === null || (Array.isArray(value) && value.length === 0)) rows.delete(key);
      else rows.set(key, value);
    }
  };
  return {
    clock,
    rows,
    attempt(username: string, address: string) {
      const keys = signInKeys(username, address);
      const { decision, counts } = decide(read(keys), clock.now);
      if (decision.allowed) write(keys, counts);
      return decision;
    },
    succeeded(username: string, address: string) {
      const keys = signInKeys(username, address);
      write(keys, withdraw(read(keys)));
    },
    /** What the store's purge does: rows past their expiry go. */
    purge() {
      for (const [key] of rows) {
        const kind = key.slice(0, key.indexOf(':')) as (typeof KINDS)[number];
        const value = rows.get(key)!;
        const counts: SignInCounts = {
          pair: kind === 'pair' ? (value as Failures) : null,
          user: kind === 'user' ? (value as number[]) : [],
          address: kind === 'address' ? (value as number[]) : [],
          network: kind === 'network' ? (value as number[]) : [],
        };
        if (expiresAtMs(kind, counts) < clock.now) rows.delete(key);
      }
    },
  };
}

type Subject = ReturnType<typeof throttle>;

/** `count` attempts for `username` from `address`, all allowed and (as nothing succeeds) failed. */
function fail(subject: Subject, username: string, count: number, address = '10.1.0.1') {
  for (let i = 0; i < count; i++)
    if (!subject.attempt(username, address).allowed)
      throw new Error(`attempt ${i + 1} for ${username} from ${address} was refused`);
}

/** `count` failed attempts for `username`, each from its own address in 10.0.0.0/16. */
function spread(subject: Subject, username: string, count: number) {
  for (let i = 0; i < count; i++) fail(subject, username, 1, `10.0.${i >> 8}.${i & 255}`);
}

/** `count` failed attempts for `username` from `address`, each as soon as the throttle allows it. */
function patiently(subject: Subject, username: string, count: number, address = '10.1.0.1') {
  for (let failures = 0; failures < count;) {
    const decision = subject.attempt(username, address);
    if (decision.allowed) failures++;
    else subject.clock.now += decision.retryAfterSeconds * SECOND;
  }
}

const refusedFor = (reason: SignInLimit, retryAfterSeconds: number) => ({
  allowed: false,
  reason,
  retryAfterSeconds,
});

test('the first five failures of a username from one address cost nothing; the sixth attempt waits a second', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5);
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('pair', 1));
  subject.clock.now = 999;
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('pair', 1), 'a partial second rounds up');
  subject.clock.now = SECOND;
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), { allowed: true });
});

test('each further failure doubles the wait, counted from the last failure, up to 15 minutes', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5);
  const waits: number[] = [];
  for (let failures = 5; failures < 16; failures++) {
    const refusal = subject.attempt('ada', '10.1.0.1');
    if (refusal.allowed) return t.fail(`allowed right after failure ${failures}`);
    waits.push(refusal.retryAfterSeconds);
    subject.clock.now += refusal.retryAfterSeconds * SECOND;
    t.true(subject.attempt('ada', '10.1.0.1').allowed, `after ${refusal.retryAfterSeconds} s`);
  }
  t.deepEqual(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900]);
  for (let guess = 0; guess < 4; guess++) {
    t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('pair', 900), 'the cap holds: no reset');
    subject.clock.now += 900 * SECOND;
    t.true(subject.attempt('ada', '10.1.0.1').allowed);
  }
});

test('at the cap, failures are forgotten only 15 quiet minutes after the wait has passed', (t) => {
  const subject = throttle();
  patiently(subject, 'ada', 15);
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('pair', 900));
  subject.clock.now += 30 * MINUTE - 1;
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), { allowed: true });
  t.false(
    subject.attempt('ada', '10.1.0.1').allowed,
    'still counted: the wait ended 15 minutes less 1 ms ago',
  );
  subject.clock.now += 30 * MINUTE;
  fail(subject, 'ada', 5);
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('pair', 1), 'counting starts again');
});

test('refused attempts count as nothing: hammering during the wait does not extend it', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5);
  subject.clock.now = SECOND;
  fail(subject, 'ada', 1);
  for (let ms = SECOND; ms < 3 * SECOND; ms += 100) {
    subject.clock.now = ms;
    t.false(subject.attempt('ada', '10.1.0.1').allowed);
  }
  subject.clock.now = 3 * SECOND;
  t.true(subject.attempt('ada', '10.1.0.1').allowed);
});

test('a success resets its username and address: five free failures again', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5);
  subject.clock.now = SECOND;
  t.true(subject.attempt('ada', '10.1.0.1').allowed);
  subject.succeeded('ada', '10.1.0.1');
  fail(subject, 'ada', 5);
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('pair', 1));
});

test('failures are forgotten 15 minutes after the last one, counted from the end of its wait', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 4);
  subject.clock.now = 15 * MINUTE - 1;
  fail(subject, 'ada', 1);
  t.false(subject.attempt('ada', '10.1.0.1').allowed, 'still five: the fourth was within 15 minutes');
  subject.clock.now += 15 * MINUTE + SECOND - 1;
  t.true(subject.attempt('ada', '10.1.0.1').allowed, 'a sixth attempt, still counted');
  t.false(subject.attempt('ada', '10.1.0.1').allowed);
  subject.clock.now += 15 * MINUTE + 2 * SECOND;
  fail(subject, 'ada', 5);
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('pair', 1), 'counting starts again');
});

test('usernames are counted case-insensitively and separately from each other', (t) => {
  const subject = throttle();
  fail(subject, 'Ada', 3);
  fail(subject, 'ADA', 2);
  t.false(subject.attempt('ada', '10.1.0.1').allowed);
  t.true(subject.attempt('grace', '10.1.0.1').allowed);
  subject.succeeded('aDa', '10.1.0.1');
  t.true(subject.attempt('ada', '10.1.0.1').allowed);
});

test("failures at one address do not lock the username out at another: the owner's right password is still checked there", (t) => {
  const subject = throttle();
  fail(subject, 'admin', 5, '203.0.113.66');
  t.deepEqual(subject.attempt('admin', '203.0.113.66'), refusedFor('pair', 1));
  for (let i = 0; i < 10; i++) {
    subject.clock.now += 10 * MINUTE;
    fail(subject, 'admin', 1, '203.0.113.66');
    t.deepEqual(subject.attempt('ADMIN', '192.0.2.10'), { allowed: true }, `the owner, round ${i + 1}`);
    subject.succeeded('admin', '192.0.2.10');
  }
  t.false(subject.attempt('admin', '203.0.113.66').allowed, "the owner's success does not free the guesser");
});

test("a success forgets only its own address's failures for the username", (t) => {
  const subject = throttle();
  fail(subject, 'ada', 4, '192.0.2.10');
  fail(subject, 'ada', 5, '203.0.113.66');
  t.true(subject.attempt('ada', '192.0.2.10').allowed);
  subject.succeeded('ada', '192.0.2.10');
  fail(subject, 'ada', 5, '192.0.2.10');
  t.deepEqual(subject.attempt('ada', '192.0.2.10'), refusedFor('pair', 1), 'five free again, no more');
  t.deepEqual(subject.attempt('ada', '203.0.113.66'), refusedFor('pair', 1));
});

test('after 100 failures of a username within an hour, from any addresses, each address gets one attempt a minute at it', (t) => {
  const subject = throttle();
  spread(subject, 'admin', 99);
  t.true(subject.attempt('admin', '10.0.0.0').allowed, 'below the ceiling: a second try is free');
  t.deepEqual(subject.attempt('admin', '10.0.0.0'), refusedFor('user', 60), 'the 100th failure');
  t.deepEqual(subject.attempt('admin', '10.0.0.1'), refusedFor('user', 60));
  t.true(subject.attempt('admin', '192.0.2.10').allowed, 'an address new to the username tries at once');
  t.deepEqual(subject.attempt('admin', '192.0.2.10'), refusedFor('user', 60), '… then once a minute');
  t.true(subject.attempt('grace', '10.0.0.1').allowed, 'other usernames are not slowed');
  t.true(subject.attempt('grace', '10.0.0.1').allowed);

  subject.clock.now = MINUTE - 1;
  t.deepEqual(subject.attempt('admin', '10.0.0.1'), refusedFor('user', 1));
  subject.clock.now = MINUTE;
  t.true(subject.attempt('admin', '10.0.0.1').allowed);
  t.deepEqual(subject.attempt('admin', '10.0.0.1'), refusedFor('user', 60));
});

test("under the username's ceiling an address waits the longer of its own wait and the minute", (t) => {
  const subject = throttle();
  patiently(subject, 'admin', 10, '203.0.113.66');
  spread(subject, 'admin', 90);
  t.deepEqual(subject.attempt('admin', '203.0.113.66'), refusedFor('user', 60), 'not its own 32 s');
  subject.clock.now += MINUTE;
  t.true(subject.attempt('admin', '203.0.113.66').allowed);
  t.deepEqual(subject.attempt('admin', '203.0.113.66'), refusedFor('pair', 64), 'not the minute');
});

test("the username's ceiling counts failures in a sliding hour; a success does not lift it", (t) => {
  const subject = throttle();
  for (let i = 0; i < 100; i++) {
    subject.clock.now = i * SECOND;
    fail(subject, 'admin', 1, `10.0.0.${i}`);
  }
  t.true(subject.attempt('admin', '192.0.2.10').allowed);
  subject.succeeded('admin', '192.0.2.10');
  t.deepEqual(subject.attempt('admin', '10.0.0.99'), refusedFor('user', 60), 'the guessing goes on');
  subject.clock.now = HOUR - 1;
  t.true(subject.attempt('admin', '10.0.1.1').allowed, 'the first failure is 1 ms short of an hour old');
  t.deepEqual(subject.attempt('admin', '10.0.1.1'), refusedFor('user', 60));
  subject.clock.now = HOUR + SECOND;
  t.true(subject.attempt('admin', '10.0.1.1').allowed, 'two failures left the hour: 99, and no minute');
  t.deepEqual(subject.attempt('admin', '10.0.1.1'), refusedFor('user', 60), 'the failure just made: 100');
});

test('an address gets 100 failures in any 15 minutes, across usernames', (t) => {
  const subject = throttle();
  for (let i = 0; i < 100; i++) {
    subject.clock.now = i * SECOND;
    t.true(subject.attempt(`user${i}`, '192.0.2.7').allowed);
  }
  t.deepEqual(subject.attempt('someone', '192.0.2.7'), refusedFor('address', 15 * 60 - 99));
  t.true(subject.attempt('someone', '192.0.2.8').allowed, 'another address is unaffected');
  subject.clock.now = 15 * MINUTE - 1;
  t.deepEqual(subject.attempt('someone', '192.0.2.7'), refusedFor('address', 1));
  subject.clock.now = 15 * MINUTE;
  t.true(subject.attempt('someone', '192.0.2.7').allowed, 'the oldest failure left the window');
  t.deepEqual(subject.attempt('someone else', '192.0.2.7'), refusedFor('address', 1));
});

test("a success withdraws its attempt from the address's count", (t) => {
  const subject = throttle();
  for (let i = 0; i < 99; i++) t.true(subject.attempt(`user${i}`, '192.0.2.7').allowed);
  for (let i = 0; i < 10; i++) {
    t.true(subject.attempt('ada', '192.0.2.7').allowed);
    subject.succeeded('ada', '192.0.2.7');
  }
  t.true(subject.attempt('grace', '192.0.2.7').allowed);
  t.like(subject.attempt('grace', '192.0.2.7'), { allowed: false, reason: 'address' });
});

test("a success withdraws its attempt from the username's count", (t) => {
  const subject = throttle();
  spread(subject, 'admin', 99);
  for (let i = 0; i < 10; i++) {
    t.true(subject.attempt('admin', '192.0.2.10').allowed);
    subject.succeeded('admin', '192.0.2.10');
  }
  t.true(subject.attempt('admin', '10.0.0.0').allowed, 'still 99 failures');
  t.like(subject.attempt('admin', '10.0.0.0'), { allowed: false, reason: 'user' });
});

test('IPv6 clients count per /64; IPv4-mapped addresses as their IPv4 address', (t) => {
  const subject = throttle();
  for (let i = 0; i < 100; i++)
    t.true(subject.attempt(`user${i}`, `2001:db8:1:2::${i.toString(16)}`).allowed);
  for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002::9', '2001:db8:1:2::1.2.3.4'])
    t.like(subject.attempt('x', same), { allowed: false, reason: 'address' }, same);
  t.true(subject.attempt('x', '2001:db8:1:3::1').allowed, 'the next /64');

  for (let i = 0; i < 100; i++) t.true(subject.attempt(`user${i}`, '::ffff:198.51.100.1').allowed);
  t.like(subject.attempt('x', '198.51.100.1'), { allowed: false, reason: 'address' });

  fail(subject, 'ada', 5, '2001:db8:5:6::1');
  t.deepEqual(subject.attempt('ada', '2001:db8:5:6::2'), refusedFor('pair', 1), 'pairs count per /64 too');
});

test('an IPv6 /48 gets at most 1,000 failed sign-ins in any 15 minutes, however many /64s it spreads them over', (t) => {
  const subject = throttle();
  for (let net = 0; net < 10; net++)
    for (let i = 0; i < 100; i++)
      t.true(subject.attempt(`user${i}`, `2001:db8:7:${net.toString(16)}::1`).allowed);
  t.like(subject.attempt('x', '2001:db8:7:ff::1'), { allowed: false, reason: 'network' }, 'an 11th /64');
  t.true(subject.attempt('x', '2001:db8:8:ff::1').allowed, 'the next /48');
  t.true(subject.attempt('x', '198.51.100.1').allowed, 'IPv4 has no wider limit');
  subject.clock.now += 15 * MINUTE;
  t.true(subject.attempt('x', '2001:db8:7:ff::1').allowed, '15 minutes later');
});

test('property: within any 15 minutes no /48 has more than 1,000 attempts allowed, and a success gives one back', (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.nat({ max: 500 }), fc.boolean()), {
        minLength: 1,
        maxLength: 2_500,
      }),
      (steps) => {
        const subject = throttle();
        const counted: number[] = [];
        for (const [net, gap, succeeds] of steps) {
          subject.clock.now += gap;
          const address = `2001:db8:9:${net.toString(16)}::${(gap % 7).toString(16)}`;
          const username = `user${gap % 50}`;
          if (!subject.attempt(username, address).allowed) continue;
          if (succeeds) subject.succeeded(username, address);
          else counted.push(subject.clock.now);
          const recent = counted.filter((at) => subject.clock.now - at < 15 * MINUTE);
          if (recent.length > 1_000) return false;
        }
        return true;
      },
    ),
    { numRuns: 30 },
  );
  t.pass();
});

test('when several limits refuse, the longest wait is given', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5, '192.0.2.7');
  for (let i = 0; i < 95; i++) subject.attempt(`user${i}`, '192.0.2.7');
  t.deepEqual(subject.attempt('ada', '192.0.2.7'), refusedFor('address', 900), 'not the 1 s of the pair');

  const capped = throttle();
  patiently(capped, 'grace', 15, '192.0.2.8');
  // Four of grace's failures are within the last 15 minutes, the oldest 896 s ago.
  for (let i = 0; i < 96; i++) capped.attempt(`user${i}`, '192.0.2.8');
  t.deepEqual(capped.attempt('grace', '192.0.2.8'), refusedFor('pair', 900), 'not the 4 s of the address');
  capped.clock.now += 4 * SECOND;
  t.deepEqual(capped.attempt('someone', '192.0.2.8'), { allowed: true });
});

test('property: deleting the rows past their expiry changes no decision', (t) => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          address: fc.integer({ min: 0, max: 5 }),
          username: fc.constantFrom('admin', 'ada', 'grace'),
          gap: fc.oneof(fc.integer({ min: 0, max: 5 * SECOND }), fc.integer({ min: 0, max: 2 * HOUR })),
          succeeds: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
          purge: fc.boolean(),
        }),
        { maxLength: 300 },
      ),
      (steps) => {
        const kept = throttle();
        const purged = throttle();
        return steps.every((step) => {
          for (const subject of [kept, purged]) subject.clock.now += step.gap;
          if (step.purge) purged.purge();
          const address = step.address < 3 ? `10.0.0.${step.address}` : `2001:db8:0:${step.address}::1`;
          const [a, b] = [kept, purged].map((subject) => subject.attempt(step.username, address));
          if (step.succeeds && a!.allowed)
            for (const subject of [kept, purged]) subject.succeeded(step.username, address);
          return JSON.stringify(a) === JSON.stringify(b);
        });
      },
    ),
    { numRuns: 200 },
  );
  t.pass();
});

test('rows expire: a pair once its failures are forgotten, an address 15 minutes and a username an hour after its newest failure', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5, '192.0.2.1');
  t.is(subject.rows.size, 3);
  subject.clock.now = 15 * MINUTE + 500;
  subject.purge();
  t.deepEqual([...subject.rows.keys()].sort(), ['pair:192.0.2.1\nada', 'user:ada'], 'the address is done');
  subject.clock.now = 15 * MINUTE + 2 * SECOND;
  subject.purge();
  t.deepEqual([...subject.rows.keys()], ['user:ada'], 'the pair is forgotten, its wait of 1 s included');
  subject.clock.now = HOUR + SECOND;
  subject.purge();
  t.is(subject.rows.size, 0);
});

test('a trusted browser gets five free failures, then waits 1 s, 2 s, … as a pair does; its failures are forgotten after 15 quiet minutes', (t) => {
  let failures: Failures = { count: 0, last: 0 };
  for (let i = 0; i < 5; i++) {
    t.is(deviceWait(failures, 0), 0, `failure ${i + 1} is free`);
    failures = deviceFailed(failures, 0);
  }
  t.is(deviceWait(failures, 0), SECOND);
  failures = deviceFailed(failures, SECOND);
  t.is(deviceWait(failures, SECOND), 2 * SECOND);
  t.is(deviceWait(failures, SECOND + 2 * SECOND + 15 * MINUTE), 0);
  t.deepEqual(deviceFailed(failures, SECOND + 2 * SECOND + 15 * MINUTE), {
    count: 1,
    last: SECOND + 2 * SECOND + 15 * MINUTE,
  });
});

/** The pair policy restated: the wait after `count` failures, the last at `last`, or 0 if forgotten. */
const delay = (count: number): number => (count < 5 ? 0 : Math.min(SECOND * 2 ** (count - 5), 15 * MINUTE));

function expectedWait(count: number, last: number, now: number): number {
  if (now - last >= delay(count) + 15 * MINUTE) return 0;
  return Math.max(0, last + delay(count) - now);
}

/** When the next attempt comes: a named moment the policy turns on, or any gap after the last attempt. */
const gap = fc.oneof(
  { arbitrary: fc.constant('wait' as const), weight: 4 },
  fc.constantFrom('just before wait' as const, 'forgotten' as const, 'just before forgotten' as const),
  fc.integer({ min: 0, max: 20 * MINUTE }),
);

test('property: for one username from one address, never allowed within the computed wait and always allowed once it has passed', (t) => {
  const step = fc.record({ gap, succeeds: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) });
  fc.assert(
    fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
      const subject = throttle();
      let count = 0;
      let last = 0;
      return steps.every((next) => {
        const wait = expectedWait(count, last, subject.clock.now);
        const forgotten = Math.max(0, last + delay(count) + 15 * MINUTE - subject.clock.now);
        subject.clock.now +=
          next.gap === 'wait'
            ? wait
            : next.gap === 'just before wait'
              ? Math.max(0, wait - 1)
              : next.gap === 'forgotten'
                ? forgotten
                : next.gap === 'just before forgotten'
                  ? Math.max(0, forgotten - 1)
                  : next.gap;
        const now = subject.clock.now;
        // Fewer than 100 attempts: only the pair's limit is in play.
        const decision = subject.attempt('ada', '10.1.0.1');
        const remaining = expectedWait(count, last, now);
        if (remaining > 0)
          return (
            JSON.stringify(decision) === JSON.stringify(refusedFor('pair', Math.ceil(remaining / SECOND)))
          );
        if (!decision.allowed) return false;
        if (next.succeeds) {
          subject.succeeded('ada', '10.1.0.1');
          count = 0;
        } else {
          count = now - last >= delay(count) + 15 * MINUTE ? 1 : count + 1;
          last = now;
        }
        return true;
      });
    }),
    { numRuns: 300 },
  );
  t.pass();
});

/** Guessing traffic: who tries which username when, from a few hundred addresses. */
const guess = fc.record({
  address: fc.integer({ min: 0, max: 299 }),
  username: fc.constantFrom('admin', 'admin', 'admin', 'ada', 'Admin'),
  gap: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 2 * SECOND }), weight: 20 },
    fc.integer({ min: 0, max: 20 * MINUTE }),
  ),
  /** The owner tries between guesses: from their usual address, or from one never used before. */
  owner: fc.constantFrom(null, null, null, null, 'home' as const, 'new' as const),
});

const guesser = (index: number) => `10.0.${index >> 8}.${index & 255}`;

test('property: whatever others guess, an address whose every attempt at a username succeeded is never refused for it', (t) => {
  fc.assert(
    fc.property(fc.array(guess, { minLength: 50, maxLength: 400 }), (steps) => {
      const subject = throttle();
      let fresh = 0;
      return steps.every((step) => {
        subject.clock.now += step.gap;
        subject.attempt(step.username, guesser(step.address));
        if (step.owner === null) return true;
        const address = step.owner === 'home' ? '192.0.2.10' : `198.51.${fresh >> 8}.${fresh++ & 255}`;
        const decision = subject.attempt('admin', address);
        subject.succeeded('admin', address);
        return decision.allowed;
      });
    }),
    { numRuns: 200 },
  );
  t.pass();
});

test('property: once a username has had 100 failures within the hour, no address gets at it twice within a minute, and none waits more than a minute for that reason', (t) => {
  fc.assert(
    fc.property(fc.array(guess, { minLength: 100, maxLength: 600 }), (steps) => {
      const subject = throttle();
      const failures: number[] = [];
      const lastAllowed = new Map<number, number>();
      return steps.every((step) => {
        subject.clock.now += step.gap;
        const now = subject.clock.now;
        const decision = subject.attempt('admin', guesser(step.address));
        const ceiling = failures.filter((time) => now - time < HOUR).length >= 100;
        if (!decision.allowed)
          return decision.reason !== 'user' || (ceiling && decision.retryAfterSeconds <= 60);
        const previous = lastAllowed.get(step.address);
        failures.push(now);
        lastAllowed.set(step.address, now);
        return !ceiling || previous === undefined || now - previous >= MINUTE;
      });
    }),
    { numRuns: 100 },
  );
  t.pass();
});

test('property: after any history, waiting as long as Retry-After says is enough', (t) => {
  fc.assert(
    fc.property(fc.array(guess, { maxLength: 400 }), guess, (steps, last) => {
      const subject = throttle();
      for (const step of steps) {
        subject.clock.now += step.gap;
        subject.attempt(step.username, guesser(step.address));
      }
      const decision = subject.attempt(last.username, guesser(last.address));
      if (decision.allowed) return true;
      subject.clock.now += decision.retryAfterSeconds * SECOND;
      return subject.attempt(last.username, guesser(last.address)).allowed;
    }),
    { numRuns: 200 },
  );
  t.pass();
});

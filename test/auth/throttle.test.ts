/** The sign-in throttle's policy, on a fake clock. */
import test from 'ava';
import fc from 'fast-check';
import { createSignInThrottle, type SignInThrottleOptions } from '../../src/auth/throttle.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

function throttle(options: Omit<SignInThrottleOptions, 'now'> = {}) {
  const clock = { now: 0 };
  return { clock, ...createSignInThrottle({ ...options, now: () => clock.now }) };
}

/** `count` attempts for `username`, each from its own address, all allowed and (as nothing succeeds) failed. */
function fail(subject: ReturnType<typeof throttle>, username: string, count: number) {
  for (let i = 0; i < count; i++)
    if (!subject.attempt(username, `10.0.${i >> 8}.${i & 255}`).allowed)
      throw new Error(`attempt ${i + 1} for ${username} was refused`);
}

const refusedFor = (reason: 'user' | 'address', retryAfterSeconds: number) => ({
  allowed: false,
  reason,
  retryAfterSeconds,
});

test('the first five failures of a username cost nothing; the sixth attempt waits a second', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5);
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('user', 1));
  subject.clock.now = 999;
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('user', 1), 'a partial second rounds up');
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
    t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('user', 900), 'the cap holds: no reset');
    subject.clock.now += 900 * SECOND;
    t.true(subject.attempt('ada', '10.1.0.1').allowed);
  }
});

test('at the cap, failures are forgotten only 15 quiet minutes after the wait has passed', (t) => {
  const subject = throttle();
  for (let failures = 0; failures < 15;) {
    const decision = subject.attempt('ada', '10.1.0.1');
    if (decision.allowed) failures++;
    else subject.clock.now += decision.retryAfterSeconds * SECOND;
  }
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('user', 900));
  subject.clock.now += 30 * MINUTE - 1;
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), { allowed: true });
  t.false(
    subject.attempt('ada', '10.1.0.1').allowed,
    'still counted: the wait ended 15 minutes less 1 ms ago',
  );
  subject.clock.now += 30 * MINUTE;
  fail(subject, 'ada', 5);
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('user', 1), 'counting starts again');
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

test('a success resets the username: five free failures again', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5);
  subject.clock.now = SECOND;
  t.true(subject.attempt('ada', '10.1.0.1').allowed);
  subject.succeeded('ada', '10.1.0.1');
  fail(subject, 'ada', 5);
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('user', 1));
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
  t.deepEqual(subject.attempt('ada', '10.1.0.1'), refusedFor('user', 1), 'counting starts again');
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

test('IPv6 clients count per /64; IPv4-mapped addresses as their IPv4 address', (t) => {
  const subject = throttle();
  for (let i = 0; i < 100; i++)
    t.true(subject.attempt(`user${i}`, `2001:db8:1:2::${i.toString(16)}`).allowed);
  for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002::9', '2001:db8:1:2::1.2.3.4'])
    t.like(subject.attempt('x', same), { allowed: false, reason: 'address' }, same);
  t.true(subject.attempt('x', '2001:db8:1:3::1').allowed, 'the next /64');

  for (let i = 0; i < 100; i++) t.true(subject.attempt(`user${i}`, '::ffff:198.51.100.1').allowed);
  t.like(subject.attempt('x', '198.51.100.1'), { allowed: false, reason: 'address' });
});

test('when both limits refuse, the longer wait is given', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5);
  for (let i = 0; i < 100; i++) subject.attempt(`user${i}`, '192.0.2.7');
  t.deepEqual(subject.attempt('ada', '192.0.2.7'), refusedFor('address', 900));
  subject.clock.now = 15 * MINUTE - 2 * SECOND;
  fail(subject, 'grace', 5);
  subject.clock.now += SECOND;
  fail(subject, 'grace', 1);
  t.deepEqual(subject.attempt('grace', '192.0.2.7'), refusedFor('user', 2), 'the address waits 1 s only');
});

test('memory is bounded: past maxKeys the key written longest ago is forgotten', (t) => {
  const subject = throttle({ maxKeys: 3 });
  fail(subject, 'ada', 5);
  for (const name of ['b', 'c']) subject.attempt(name, '192.0.2.1');
  t.false(subject.attempt('ada', '192.0.2.1').allowed, 'three keys: ada is still tracked');
  subject.attempt('d', '192.0.2.1');
  t.true(subject.attempt('ada', '192.0.2.1').allowed, 'a fourth key pushed ada out');

  const addresses = throttle({ maxKeys: 2 });
  for (let i = 0; i < 100; i++) addresses.attempt(`user${i}`, '192.0.2.7');
  addresses.attempt('x', '192.0.2.8');
  t.false(addresses.attempt('y', '192.0.2.7').allowed);
  addresses.attempt('x', '192.0.2.9');
  t.true(addresses.attempt('y', '192.0.2.7').allowed);
});

test('the default bound is 10,000 keys of each kind', (t) => {
  const subject = throttle();
  fail(subject, 'ada', 5);
  for (let i = 0; i < 9_999; i++) subject.attempt(`user${i}`, `172.16.${i >> 8}.${i & 255}`);
  t.false(subject.attempt('ada', '192.0.2.1').allowed);
  subject.attempt('one more', '192.0.2.1');
  t.true(subject.attempt('ada', '192.0.2.1').allowed);
});

/** The policy restated: the wait after `count` failures, the last at `last`, or 0 if forgotten. */
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

test('property: for one username, never allowed within the computed wait and always allowed once it has passed', (t) => {
  const step = fc.record({ gap, succeeds: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) });
  fc.assert(
    fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
      const subject = throttle();
      let count = 0;
      let last = 0;
      return steps.every((next, i) => {
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
        // Each attempt from its own address: only the username's limit is in play.
        const address = `10.0.${i >> 8}.${i & 255}`;
        const decision = subject.attempt('ada', address);
        const remaining = expectedWait(count, last, now);
        if (remaining > 0)
          return (
            JSON.stringify(decision) === JSON.stringify(refusedFor('user', Math.ceil(remaining / SECOND)))
          );
        if (!decision.allowed) return false;
        if (next.succeeds) {
          subject.succeeded('ada', address);
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

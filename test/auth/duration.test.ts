import test from 'ava';
import { parseDuration } from '../../src/auth/duration.ts';

test('durations: minutes, hours, days, weeks, never', (t) => {
  t.is(parseDuration('30m'), 30 * 60_000);
  t.is(parseDuration('12h'), 12 * 3_600_000);
  t.is(parseDuration('90d'), 90 * 86_400_000);
  t.is(parseDuration('2w'), 14 * 86_400_000);
  t.is(parseDuration('never'), null);
});

test('anything else is a usage error that says what is accepted', (t) => {
  for (const value of ['', '90', 'd', '0d', '-1d', '1.5d', '90 d', '1y', '10000w', 'forever']) {
    const error = t.throws(() => parseDuration(value), undefined, value);
    t.like(error, { code: 'invalid_duration', exitCode: 2 });
    t.regex(error?.message ?? '', /is not a duration Ward understands/);
  }
});

import test from 'ava';
import { backendSettings, parseSessionIdle } from '../../src/config/backend-settings.ts';
import { loadConfig } from '../../src/config.ts';

test('parseSessionIdle: unset is 15 minutes; decimals from 0.1 to 720 pass; anything else names the variable and the fix', (t) => {
  t.is(parseSessionIdle(null), 15 * 60_000);
  t.is(parseSessionIdle('30'), 30 * 60_000);
  t.is(parseSessionIdle(' 0.5 '), 30_000);
  t.is(parseSessionIdle('0.1'), 6_000);
  t.is(parseSessionIdle('720'), 720 * 60_000);
  for (const bad of ['0', '0.05', '721', '-5', '15m', '1e2', 'abc', '', '1,5']) {
    const error = t.throws(() => parseSessionIdle(bad));
    t.is(
      error?.message,
      `WARD_SESSION_IDLE_MINUTES=${JSON.stringify(bad)} is not a number of minutes from 0.1 to 720`,
    );
    t.regex((error as Error & { hint: string }).hint, /unset, it is 15/);
  }
});

test('backendSettings refuses a bad WARD_SESSION_IDLE_MINUTES before anything starts', (t) => {
  t.is(backendSettings(loadConfig({ WARD_SESSION_IDLE_MINUTES: '5' })).sessionIdleMs, 300_000);
  t.throws(() => backendSettings(loadConfig({ WARD_SESSION_IDLE_MINUTES: 'soon' })), {
    message: /WARD_SESSION_IDLE_MINUTES="soon"/,
  });
});

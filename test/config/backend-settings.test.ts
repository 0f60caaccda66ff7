import test from 'ava';
import { backendSettings, metricsSettings, parseSessionIdle } from '../../src/config/backend-settings.ts';
import { loadConfig } from '../../src/config.ts';

const TOKEN = 'a-token-of-32-characters-0123456';
const given = (port: string | null, host: string | null = null, token: string | null = null) => ({
  port,
  host,
  token,
});

test('metrics are off unless WARD_METRICS_PORT is set; off says so, and then host and token are ignored', (t) => {
  t.is(metricsSettings(given(null), 8080), null);
  t.is(metricsSettings(given('off'), 8080), null);
  t.is(metricsSettings(given(' OFF ', '0.0.0.0', TOKEN), 8080), null);
});

test('with a port, metrics listen on 127.0.0.1 unless told, with the token if one is given', (t) => {
  t.deepEqual(metricsSettings(given('9464'), 8080), { port: 9464, host: '127.0.0.1', token: null });
  t.deepEqual(metricsSettings(given('0', '0.0.0.0', ` ${TOKEN} `), 0), {
    port: 0,
    host: '0.0.0.0',
    token: TOKEN,
  });
  t.deepEqual(metricsSettings(given('9464', '[::]'), 8080), { port: 9464, host: '::', token: null });
});

test('a bad metrics setting is refused naming the variable and the fix', (t) => {
  const refused = (settings: ReturnType<typeof given>, message: string | RegExp) => {
    const error = t.throws(() => metricsSettings(settings, 8080), { message });
    t.is((error as { code?: string } | undefined)?.code, 'invalid_setting');
    t.truthy((error as { hint?: string } | undefined)?.hint);
  };
  refused(given('nine'), 'WARD_METRICS_PORT="nine" is not a TCP port');
  refused(given('65536'), 'WARD_METRICS_PORT="65536" is not a TCP port');
  refused(given('8080'), "WARD_METRICS_PORT=8080 is also the API's PORT");
  refused(
    given(null, '0.0.0.0'),
    'WARD_METRICS_HOST is set but WARD_METRICS_PORT is not, so no metrics would be served',
  );
  refused(given(null, null, TOKEN), /^WARD_METRICS_TOKEN is set but WARD_METRICS_PORT is not/);
  refused(given('9464', 'no such host!'), 'WARD_METRICS_HOST="no such host!" is not an address to listen on');
  refused(
    given('9464', null, 'short'),
    'WARD_METRICS_TOKEN is 5 characters long, too short to guard the metrics',
  );
  refused(given('9464', null, 'sixteen chars, with spaces'), /holds characters a bearer token cannot/);
});

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

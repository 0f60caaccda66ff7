/**
 * The registration point other parts of Ward use. Enabling is once per process: each ava test
 * file runs in a process of its own, and the tests here run in order.
 */
import test from 'ava';
import { enableMetrics, metrics, metricsEnabled } from '../../src/metrics/registry.ts';

const early = metrics.histogram<'queue'>({
  name: 'ward_test_wait_seconds',
  help: 'Declared before metrics are enabled.',
  labelNames: ['queue'],
});

test.serial('before metrics are enabled, instruments record nothing and prom-client is not loaded', (t) => {
  early.observe({ queue: 'mail' }, 0.5);
  early.startTimer({ queue: 'mail' })();
  t.false(metricsEnabled());
});

test.serial(
  'once enabled, instruments declared before and after record; a name declared twice is one instrument',
  async (t) => {
    const registry = await enableMetrics();
    t.is(await enableMetrics(), registry);
    t.true(metricsEnabled());
    early.observe({ queue: 'mail' }, 0.2);
    const failures = metrics.counter<'queue'>({
      name: 'ward_test_failures_total',
      help: 'Declared after.',
      labelNames: ['queue'],
    });
    failures.inc({ queue: 'mail' });
    metrics
      .counter<'queue'>({ name: 'ward_test_failures_total', help: 'Again.', labelNames: ['queue'] })
      .inc({
        queue: 'mail',
      });
    let depth = 3;
    metrics.gauge<'queue'>({
      name: 'ward_test_depth',
      help: 'Read at each scrape.',
      labelNames: ['queue'],
      collect: () => [{ labels: { queue: 'mail' }, value: depth }],
    });
    const text = await registry.text();
    t.regex(text, /^ward_test_wait_seconds_count\{queue="mail"\} 1$/m);
    t.regex(text, /^ward_test_wait_seconds_bucket\{le="0.25",queue="mail"\} 1$/m);
    t.regex(text, /^ward_test_failures_total\{queue="mail"\} 2$/m);
    t.regex(text, /^ward_test_depth\{queue="mail"\} 3$/m);
    depth = 5;
    t.regex(await registry.text(), /^ward_test_depth\{queue="mail"\} 5$/m);
    t.regex(text, /^process_cpu_user_seconds_total /m);
  },
);

test.serial('a name declared as another kind is refused', (t) => {
  t.throws(() => metrics.gauge({ name: 'ward_test_failures_total', help: 'A gauge now?' }), {
    message: 'metric ward_test_failures_total is already declared as a counter',
  });
});

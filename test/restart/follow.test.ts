import test from 'ava';
import fc from 'fast-check';
import {
  failedSteps,
  FIRST_DELAY_MS,
  followRestart,
  MAX_DELAY_MS,
  nextDelay,
  stepLine,
  type Seen,
} from '../../src/restart/follow.ts';

/** A clock that only the waits move: each probe sees what `seen` lists, in turn. */
function scripted(seen: Seen[], timeoutMs: number) {
  let clock = 0;
  const waits: number[] = [];
  const away: boolean[] = [];
  let probes = 0;
  const run = followRestart({
    probe: async () => seen[Math.min(probes++, seen.length - 1)]!,
    timeoutMs,
    now: () => clock,
    sleep: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
    onAway: (value) => away.push(value),
  });
  return { run, waits, away, probes: () => probes };
}

const seenArb = fc.constantFrom<Seen>('old', 'away');

test('the wait doubles while nothing answers, up to its ceiling, and starts over once something answers', (t) => {
  fc.assert(
    fc.property(fc.array(seenArb, { maxLength: 40 }), (seen) => {
      let previous: number | null = null;
      for (const one of seen) {
        const delay = nextDelay(previous, one);
        if (one === 'old' || previous === null) t.is(delay, FIRST_DELAY_MS);
        else t.is(delay, Math.min(previous * 2, MAX_DELAY_MS));
        t.true(delay >= FIRST_DELAY_MS && delay <= MAX_DELAY_MS);
        previous = delay;
      }
    }),
  );
});

test('following ends at the first probe that sees the restart over, having said each time whether nothing answered', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(seenArb, { maxLength: 30 }), async (before) => {
      const { run, waits, away, probes } = scripted([...before, 'back'], Number.MAX_SAFE_INTEGER);
      t.is(await run, 'restarted');
      t.is(probes(), before.length + 1);
      t.deepEqual(
        away,
        before.map((seen) => seen === 'away'),
      );
      t.is(waits.length, before.length);
    }),
  );
});

test('following gives up once the time is out, and not before', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 60_000 }), seenArb, async (timeoutMs, seen) => {
      const { run, waits } = scripted([seen], timeoutMs);
      t.is(await run, 'gave-up');
      const waited = waits.reduce((sum, ms) => sum + ms, 0);
      t.true(waited >= timeoutMs, 'it waited the whole time');
      const beforeLast = waited - (waits.at(-1) ?? 0);
      t.true(waits.length === 0 || beforeLast < timeoutMs, 'and stopped at the first probe after it');
    }),
  );
});

test('following stops, probing no more, once the signal aborts', async (t) => {
  const controller = new AbortController();
  let probes = 0;
  const result = await followRestart({
    probe: async () => {
      probes += 1;
      if (probes === 3) controller.abort();
      return 'away';
    },
    timeoutMs: 60_000,
    signal: controller.signal,
    sleep: async () => undefined,
  });
  t.is(result, 'aborted');
  t.is(probes, 3);
});

test('the steps that failed or were skipped are what the restart did not apply', (t) => {
  const step = (status: string, message: string | null = null) => ({
    module_name: 'patients',
    operation: 'install',
    step: 'migrate',
    status,
    message,
  });
  const steps = [step('started'), step('done'), step('failed', 'relation exists'), step('skipped')];
  t.deepEqual(failedSteps(steps), [steps[2], steps[3]]);
  t.is(stepLine(steps[2]!), 'install patients: migrate failed (relation exists)');
  t.is(stepLine(steps[1]!), 'install patients: migrate done');
});

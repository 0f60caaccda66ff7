/**
 * A test-only switch for crash injection: WARD_TEST_CRASH="<n>:<start|middle|end>" makes the
 * backend kill itself with SIGKILL at the n-th step it runs (counting from 1): just after logging
 * `started`, after the step's work but before it is recorded done (inside its transaction), or
 * just after it is recorded. SIGKILL, so nothing gets to clean up, as in a power cut.
 */
export type CrashPoint = 'start' | 'middle' | 'end';

export type Crash = (stepNumber: number, point: CrashPoint) => void;

export function crashSwitch(value: string | undefined = process.env.WARD_TEST_CRASH): Crash {
  const match = /^(\d+):(start|middle|end)$/.exec(value ?? '');
  if (match === null) return () => undefined;
  const [target, where] = [Number(match[1]), match[2]];
  return (stepNumber, point) => {
    if (stepNumber === target && point === where) process.kill(process.pid, 'SIGKILL');
  };
}

/**
 * A test-only switch, like the controller's WARD_TEST_CRASH: WARD_TEST_IMPORT_CRASH="<n>:<middle|end>"
 * makes the backend kill itself with SIGKILL at the n-th batch an execute run writes: inside the
 * batch's transaction after its writes (`middle`, nothing of the batch commits), or just after it
 * commits (`end`). SIGKILL, so nothing cleans up, as when a host dies.
 */
export type ImportCrash = (batch: number, point: 'middle' | 'end') => void;

export function importCrashSwitch(
  value: string | undefined = process.env.WARD_TEST_IMPORT_CRASH,
): ImportCrash {
  const match = /^(\d+):(middle|end)$/.exec(value ?? '');
  if (match === null) return () => undefined;
  const [target, where] = [Number(match[1]), match[2]];
  return (batch, point) => {
    if (batch === target && point === where) process.kill(process.pid, 'SIGKILL');
  };
}

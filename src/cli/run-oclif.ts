/**
 * Runs the command line in `process.argv` through oclif: every `ward` command but `ward backend`
 * and the lean `modules list` (bin/ward.ts, and the list's bundle when it leaves a command to oclif).
 */
export async function runOclif(): Promise<void> {
  const { execute, settings } = await import('@oclif/core');
  // Node 24 runs our .ts commands itself; oclif must not look for ts-node or a compiled lib/.
  settings.enableAutoTranspile = false;
  // oclif finds Ward's package.json (its commands, its manifest) from this file's folder up.
  await execute({ dir: import.meta.url });
}

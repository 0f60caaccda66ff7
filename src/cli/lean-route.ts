/**
 * Which invocations may skip oclif. Loading oclif (and knex behind it) takes longer than
 * `ward modules list` itself does, so that read runs on a lean path (lean-list.ts) when the
 * command line is exactly one it can answer the same way. Pure, and imported before anything
 * else, so it imports nothing.
 */

/** Exactly as typed: a flag oclif would reject, or help, must still reach oclif. */
const LEAN_LIST_ARGV: ReadonlyArray<readonly string[]> = [
  ['modules', 'list'],
  ['modules', 'list', '--json'],
];

/**
 * Settings oclif reads that change what a command prints: WARD_CONTENT_TYPE=json turns on JSON
 * output, DEBUG and WARD_DEBUG add oclif's debug lines.
 */
const OCLIF_OUTPUT_ENV = ['WARD_CONTENT_TYPE', 'DEBUG', 'WARD_DEBUG'];

/** null when oclif must run the command. */
export function leanListRequest(argv: readonly string[], env: NodeJS.ProcessEnv): { json: boolean } | null {
  const matches = LEAN_LIST_ARGV.some(
    (lean) => lean.length === argv.length && lean.every((word, index) => word === argv[index]),
  );
  if (!matches) return null;
  // oclif ignores empty variables too.
  if (OCLIF_OUTPUT_ENV.some((name) => (env[name] ?? '') !== '')) return null;
  return { json: argv.includes('--json') };
}

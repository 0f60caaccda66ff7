/**
 * The seed step's errors: one code, `seed_failed`, whose message names the module, the file and
 * the record, and says what is wrong (the schema's complaint or the database's own message).
 */
import { WardError } from '../../errors/ward-error.ts';
import type { SeedProblem, SeedRecord } from './seed-file.ts';
import type { Deletion } from './seed-plan.ts';

export const seedHint = (module: string): string =>
  `fix the seed file or the migration, then \`ward modules install ${module}\` and restart`;

/** Every problem found before anything was written, one per line. */
export function invalidSeeds(module: string, problems: readonly SeedProblem[]): WardError {
  const lines = problems.map(
    (problem) => `  ${problem.file}${problem.path === '/' ? '' : ` at ${problem.path}`}: ${problem.message}`,
  );
  return new WardError(
    'seed_failed',
    `module ${module} has invalid seeds:\n${lines.join('\n')}`,
    seedHint(module),
  );
}

export function recordFailed(module: string, record: SeedRecord, error: unknown): WardError {
  return new WardError(
    'seed_failed',
    `module ${module}: seed record "${record.xmlId}" (${record.file} at /records/${record.index}) failed: ${databaseMessage(error)}`,
    seedHint(module),
    { cause: error },
  );
}

export function deleteFailed(module: string, item: Deletion, error: unknown): WardError {
  return new WardError(
    'seed_failed',
    `module ${module}: deleting seed record "${item.xmlId}" (table ${item.table}, id ${item.recordId}) failed: ${databaseMessage(error)}`,
    seedHint(module),
    { cause: error },
  );
}

const databaseMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

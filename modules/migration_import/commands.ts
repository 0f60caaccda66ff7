/**
 * The operator's commands, run with `ward modules run migration_import <command>`: purging a job's
 * raw data (as `POST /jobs/{id}/purge` does, recorded as purged by `cli:<user>`), and applying a
 * retention age at once rather than waiting for the background sweeper.
 */
import type { CommandContext, CommandResult, ModuleCommands } from '../../src/sdk/index.ts';
import type { JobRow } from './lib/jobs/job-row.ts';
import { TABLE } from './lib/jobs/lease.ts';
import { purgeExpired, purgeJob } from './lib/jobs/purge.ts';

/** A whole number of at least `min` from the command line, or a usage error naming `what`. */
function wholeNumber(ctx: CommandContext, value: string | undefined, what: string, min: number): number {
  if (value !== undefined && /^\d{1,9}$/.test(value) && Number(value) >= min) return Number(value);
  throw new ctx.sdk.errors.WardError(
    'bad_usage',
    value === undefined ? `give the ${what}` : `"${value}" is not a ${what}`,
    `give a whole number of at least ${min}, such as \`ward modules run migration_import purge 42\``,
    { exitCode: 2 },
  );
}

async function purge(args: readonly string[], ctx: CommandContext): Promise<CommandResult> {
  const id = wholeNumber(ctx, args[0], 'job id', 1);
  const done = await purgeJob(ctx, id, ctx.operator);
  if (done === undefined) {
    const row = (await ctx.knex(TABLE).where({ id }).first()) as JobRow | undefined;
    if (row === undefined)
      throw new ctx.sdk.errors.WardError(
        'not_found',
        `there is no import job ${id}`,
        'GET /api/v1/migration_import/jobs lists the jobs, newest first',
      );
    throw new ctx.sdk.errors.WardError(
      'job_busy',
      `import job ${id} is ${row.state}: its source is being read`,
      'purge it once its run has finished',
    );
  }
  const line = done.purged
    ? `Purged import job ${id}: its source, ${done.binaries} binary file(s) and ${done.warnings} warning(s) are deleted; the job stays, marked purged by ${ctx.operator}.`
    : `Import job ${id} was purged already (by ${done.row.purged_by ?? 'someone'}); nothing to do.`;
  return {
    lines: [line],
    data: { id, purged: done.purged, binaries: done.binaries, warnings: done.warnings },
  };
}

async function purgeOlder(args: readonly string[], ctx: CommandContext): Promise<CommandResult> {
  const days = wholeNumber(ctx, args[0], 'number of days', 1);
  // purgeExpired takes a batch at a time; each batch purges at least one job, or ends the loop.
  const purged: number[] = [];
  for (let batch = await purgeExpired(ctx, days); batch.length > 0; batch = await purgeExpired(ctx, days))
    purged.push(...batch);
  return {
    lines: [
      purged.length === 0
        ? `No import job unchanged for ${days} day(s) holds raw data.`
        : `Purged ${purged.length} import job(s) unchanged for ${days} day(s): ${purged.join(', ')}.`,
    ],
    data: { days, purged },
  };
}

const commands: ModuleCommands = [
  {
    name: 'purge',
    usage: '<job-id>',
    summary:
      "Delete a job's source, binaries and warnings (not what it imported); the job stays, marked purged",
    run: purge,
  },
  {
    name: 'purge-older',
    usage: '<days>',
    summary:
      'Purge every job not running and unchanged for that many days, as WARD_IMPORT_RETENTION_DAYS does in the background',
    run: purgeOlder,
  },
];

export default commands;

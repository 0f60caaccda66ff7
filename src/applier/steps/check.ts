/**
 * The first uninstall step: prove that the database steps of the uninstall (seed purge, then the
 * downgrade of the migration branch to base) can finish, before the backup, the hook or the purge
 * change anything. They run for real inside a savepoint that is then rolled back: PostgreSQL DDL
 * is transactional, so the dry run meets exactly what the real downgrade will meet (a foreign key
 * or a view from a table that stays into a table the branch drops, a migration file gone from
 * disk) and leaves nothing behind.
 *
 * The rest of the plan is already settled when this runs: the restart plan keeps an uninstall
 * whose present dependents stay (reconcile-plan.ts), and modules that point into this one are
 * uninstalled before it, so their foreign keys are gone by now unless their own uninstall failed,
 * which this dry run then reports.
 */
import type { Knex } from 'knex';
import { WardError, isWardError } from '../../errors/ward-error.ts';
import type { DiskModule } from '../../planner/types.ts';
import { purgeExternalIds } from '../seeds/seed.ts';
import { downgradeToBase } from './migrate.ts';

/** Thrown at the end of a dry run that went through, so that its savepoint rolls back. */
class DryRunDone extends Error {}

/** PostgreSQL's own words: the message, and the detail that names the objects in the way. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const detail = (error as { detail?: unknown }).detail;
  return typeof detail === 'string' && detail !== ''
    ? `${error.message} (${detail.replaceAll('\n', '; ')})`
    : error.message;
}

/**
 * Dry-runs the uninstall of `modules[0]` and then of the uninstalls that follow it in the same
 * plan, in order, in one savepoint: a cascade is proven whole before its first module loses
 * anything. Returns what the first module's downgrade would undo, or throws `uninstall_blocked`
 * naming the module whose downgrade would fail and why. The message carries the fix: it is what
 * `core_module.error_message` keeps.
 */
export async function checkUninstall(
  knex: Knex,
  modules: readonly [Pick<DiskModule, 'name' | 'dir'>, ...Pick<DiskModule, 'name' | 'dir'>[]],
): Promise<{ wouldUndo: string[]; provenWith?: string[] }> {
  const [module] = modules;
  let undone: string[] = [];
  let current = module.name;
  const outcome = await knex
    .transaction(async (trx) => {
      for (const each of modules) {
        current = each.name;
        await purgeExternalIds(trx, each.name);
        const steps = await downgradeToBase(trx, each);
        if (each === module) undone = steps;
      }
      throw new DryRunDone();
    })
    .catch((error: unknown) => error);
  if (!(outcome instanceof DryRunDone)) {
    const whose =
      current === module.name
        ? `the downgrade of ${module.name}`
        : `the downgrade of ${current}, which this restart uninstalls after ${module.name},`;
    const fix = isWardError(outcome)
      ? outcome.hint
      : `drop the foreign key or view in the way, or uninstall the module that owns it, then restart, or run \`ward modules install ${module.name}\` to keep ${module.name}`;
    throw new WardError(
      'uninstall_blocked',
      `${whose} would fail, so nothing was backed up, run or deleted: ${describe(outcome)}; ${fix}`,
      `${module.name} stays scheduled for uninstall, and this check runs again at every restart`,
      { cause: outcome },
    );
  }
  const later = modules.slice(1).map((each) => each.name);
  return later.length === 0 ? { wouldUndo: undone } : { wouldUndo: undone, provenWith: later };
}

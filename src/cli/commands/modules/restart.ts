import { Flags } from '@oclif/core';
import { appendAlone } from '../../../audit/record.ts';
import type { Knex } from 'knex';
import { WardError } from '../../../errors/ward-error.ts';
import { logSince, newestLogId } from '../../../db/modules.ts';
import { pendingPlan } from '../../../db/schedule.ts';
import { preflight, renderFindings, restartRefused } from '../../../planner/preflight.ts';
import type { Plan } from '../../../planner/types.ts';
import { databaseUrl } from '../../../db/connection.ts';
import { LOCK_KEYS, lockHeld } from '../../../db/lock.ts';
import {
  listenForRefusals,
  requestRestart,
  runningBackends,
  runningSupervisors,
  type RestartRefusal,
  type RunningBackend,
} from '../../../db/restart-signal.ts';
import { listenForSteps } from '../../../db/step-channel.ts';
import { startInputs } from '../../../inspect/preflight.ts';
import { failedSteps, followRestart, stepLine, type LogStep, type Seen } from '../../../restart/follow.ts';
import { ModuleCommand } from '../../module-command.ts';
import { renderPlan } from '../../render.ts';

const NO_BACKEND = [
  'No backend is running, so nothing was restarted. Start it to apply the plan:',
  '  docker compose up -d backend   (or: ward serve)',
].join('\n');

interface RestartResult {
  plan: Plan;
  restarted: number;
  waited: boolean;
  failed: Array<{ module: string; step: string; message: string | null }>;
}

export default class ModulesRestart extends ModuleCommand {
  static override description =
    'Restart every running backend (each stops gracefully and is started again), which applies the pending plan. First checks what the next start would refuse (orphans, broken manifests, missing tables, a bad setting or grants file): if anything, nothing restarts and the running backends keep serving; exits 1 then';
  static override examples = [
    '<%= config.bin %> modules restart',
    '<%= config.bin %> modules restart --wait',
    '<%= config.bin %> modules restart --force',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    force: Flags.boolean({
      description:
        'restart even if the next start would refuse: the backends stop, and stay down until the cause is fixed',
      default: false,
    }),
    wait: Flags.boolean({
      description: 'print each step as the backends apply it, until they are back; exit 1 if a module failed',
      default: false,
    }),
    timeout: Flags.integer({
      description: 'with --wait: seconds to wait for the backends to come back',
      default: 120,
      min: 1,
    }),
  };

  async run(): Promise<RestartResult> {
    const { flags } = await this.parse(ModulesRestart);
    const [knex, inventory] = await Promise.all([this.db(), this.inventory()]);
    const plan = await pendingPlan(knex, inventory);
    this.log(renderPlan(plan));
    const before = await runningBackends(knex);
    const underWay = before.length === 0 ? await restartUnderWay(knex) : null;
    if (before.length === 0 && underWay === null) {
      if (flags.wait)
        throw new WardError(
          'no_backend',
          'no backend is running, so there is nothing to wait for',
          'start it: `ward serve` or `docker compose up -d backend`',
        );
      this.log(`\n${NO_BACKEND}`);
      return { plan, restarted: 0, waited: false, failed: [] };
    }
    // A backend applying its plan has passed its start checks, and mid-plan the rows are in flux.
    if (!flags.force && underWay?.reconciling !== true) {
      const findings = preflight(await startInputs(knex, this.settings, this.inventory()));
      if (findings.length > 0) throw restartRefused(findings, '`ward modules restart --force`');
    }
    await appendAlone(knex, [
      {
        actor: this.by.actor,
        action: 'module.restart',
        kind: 'module',
        detail: { requested: true, force: flags.force, backends: before.length },
      },
    ]);
    const asked =
      underWay === null
        ? `\nAsked ${before.length} running backend(s) to restart.`
        : `\nNo backend is serving right now, but a restart is under way (${underWay.why}).`;
    if (!flags.wait) {
      // Also reaches a `ward serve` backing off after failed starts: it starts one at once. Only
      // the backends seen above restart: one started since (by a restart under way) keeps serving.
      await requestRestart(knex, { force: flags.force, backends: before.map((backend) => backend.id) });
      this.log(asked);
      return { plan, restarted: before.length, waited: false, failed: [] };
    }
    const failed = await this.follow(knex, before, asked, flags);
    if (failed.length > 0) process.exitCode = 1;
    this.log(
      failed.length > 0
        ? `${failed.length} module step(s) failed, were skipped or blocked; see \`ward modules doctor\`.`
        : 'Backends are back.',
    );
    return { plan, restarted: before.length, waited: true, failed };
  }

  /**
   * Asks for the restart and prints its steps until the backends are back (all of them new; at
   * least one when none was running). A backend that refuses (its own check of its next start,
   * with its own files, found something) ends the wait with that refusal.
   */
  private async follow(
    knex: Knex,
    before: RunningBackend[],
    asked: string,
    flags: { force: boolean; timeout: number },
  ): Promise<RestartResult['failed']> {
    const fromId = await newestLogId(knex);
    const url = await databaseUrl(this.settings);
    // Listening before asking, so that no step of this restart, and no refusal, goes by unannounced.
    const printed = new Map<string, number>();
    const refusals: RestartRefusal[] = [];
    // A backend may announce its first steps before `asked` is printed; they wait for it, in order.
    let held: string[] | null = [];
    const [feed, refused] = await openBoth(
      listenForSteps(url, ({ module, ...notice }) => {
        const step = { module_name: module, ...notice };
        const line = `  ${stepLine(step)}`;
        if (held === null) this.log(line);
        else held.push(line);
        printed.set(stepKey(step), (printed.get(stepKey(step)) ?? 0) + 1);
      }),
      listenForRefusals(url, (refusal) => refusals.push(refusal)),
    );
    try {
      await requestRestart(knex, { force: flags.force, backends: before.map((backend) => backend.id) });
      this.log(asked);
      for (const line of held) this.log(line);
      held = null;
      await untilBack(knex, before, refusals, flags.timeout * 1000);
    } finally {
      // Everything announced before the backends came back is printed before the summary.
      await feed.caughtUp();
      await Promise.all([feed.close(), refused.close()]);
    }
    const failed = this.summarise(await logSince(knex, fromId), printed);
    if (refusals.length > 0) throw refusedByBackends(refusals);
    return failed;
  }

  /**
   * The outcome, from the operation log: the notices are for watching, the log is the record. Prints
   * the rows no notice announced (a connection lost on the way), in the log's order.
   */
  private summarise(rows: LogStep[], printed: Map<string, number>): RestartResult['failed'] {
    for (const row of rows) {
      const key = stepKey(row);
      const announced = printed.get(key) ?? 0;
      if (announced > 0) printed.set(key, announced - 1);
      else this.log(`  ${stepLine(row)}`);
    }
    return failedSteps(rows).map((row) => ({
      module: row.module_name,
      step: row.step,
      message: row.message,
    }));
  }
}

/** Both listeners open, or neither: if one fails, the other is closed and the failure thrown. */
export async function openBoth<A extends { close(): Promise<void> }, B extends { close(): Promise<void> }>(
  first: Promise<A>,
  second: Promise<B>,
): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'fulfilled' && b.status === 'fulfilled') return [a.value, b.value];
  await Promise.all(
    [a, b].map((opened) => (opened.status === 'fulfilled' ? opened.value.close() : undefined)),
  );
  throw a.status === 'rejected' ? a.reason : (b as PromiseRejectedResult).reason;
}

/** A notice's message may be cut short (step-channel.ts), so a row is matched to it without. */
const stepKey = (line: LogStep) => stepLine({ ...line, message: null });

/**
 * Why a backend is on its way although none serves: one is applying the plan as it starts (it holds
 * the reconcile lock), or a `ward serve` is starting one (between two backends, or backing off).
 * null when nothing says so.
 */
async function restartUnderWay(knex: Knex): Promise<{ reconciling: boolean; why: string } | null> {
  const [reconciling, supervisors] = await Promise.all([
    lockHeld(knex, LOCK_KEYS.applying),
    runningSupervisors(knex),
  ]);
  if (reconciling) return { reconciling, why: 'a backend is applying the plan as it starts' };
  if (supervisors.length > 0)
    return {
      reconciling,
      why: `\`ward serve\` (pid ${supervisors.map((supervisor) => supervisor.pid).join(', ')}) is starting a backend`,
    };
  return null;
}

/** Some backends refused and keep serving: what each one found. */
function refusedByBackends(refusals: readonly RestartRefusal[]): WardError {
  const error = restartRefused(
    refusals.flatMap((refusal) => refusal.findings),
    '`ward modules restart --force`',
  );
  return new WardError(
    error.code,
    [
      `${refusals.length} backend(s) checked their next start and refused to restart; they keep serving:`,
      ...refusals.map((refusal) => `backend pid ${refusal.pid}:\n${renderFindings(refusal.findings)}`),
    ].join('\n'),
    error.hint,
  );
}

/**
 * Resolves once every backend of `before` has been replaced or has refused (`refusals` fills as
 * they say so), and as many new ones are up as replace them: at least one when none was running.
 */
async function untilBack(
  knex: Knex,
  before: RunningBackend[],
  refusals: readonly RestartRefusal[],
  timeoutMs: number,
): Promise<void> {
  const old = new Set(before.map((backend) => backend.id));
  const probe = async (): Promise<Seen> => {
    const refused = new Set(refusals.map((refusal) => refusal.id).filter((id) => old.has(id)));
    const expected = Math.max(before.length, 1) - refused.size;
    if (expected <= 0) return 'back';
    const now = await runningBackends(knex);
    const replaced = now.every((backend) => !old.has(backend.id) || refused.has(backend.id));
    return replaced && now.length - refused.size >= expected ? 'back' : 'old';
  };
  if ((await followRestart({ probe, timeoutMs })) !== 'restarted')
    throw new WardError(
      'restart_timeout',
      `the backends did not come back within ${Math.round(timeoutMs / 1000)} s`,
      'check the backend logs (a start refused because of orphan modules keeps retrying), then `ward modules doctor`',
    );
}

/**
 * How long the start-up reconcile and each of its steps took: a step listener (the applier's
 * events, src/applier/events.ts) and a timer for the whole reconcile. A backend reconciles once,
 * at its start, so these describe the start of the process being scraped.
 */
import { metrics } from '../metrics/registry.ts';
import type { StepListener } from './events.ts';

const stepDuration = metrics.histogram<'module' | 'operation' | 'step' | 'outcome'>({
  name: 'ward_module_step_duration_seconds',
  help: 'Steps of module changes this backend applied at its start, by module, operation, step and outcome (done or failed).',
  labelNames: ['module', 'operation', 'step', 'outcome'],
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
});

const notApplied = metrics.counter<'operation' | 'reason'>({
  name: 'ward_module_actions_not_applied_total',
  help: 'Module changes the start-up reconcile did not apply: skipped (a module they need failed) or blocked (refused by the planner).',
  labelNames: ['operation', 'reason'],
});

const reconcileDuration = metrics.gauge({
  name: 'ward_reconcile_duration_seconds',
  help: "How long this backend's start-up reconcile took: core migrations, bootstrap checks, the module plan.",
});

/** Records each step's duration once it is durable or has failed. */
export function stepMetrics(): StepListener {
  return (event) => {
    switch (event.type) {
      case 'committed':
      case 'failed':
        stepDuration.observe(
          {
            module: event.module,
            operation: event.operation,
            step: event.step,
            outcome: event.type === 'committed' ? 'done' : 'failed',
          },
          event.ms / 1000,
        );
        return;
      case 'skipped':
      case 'blocked':
        notApplied.inc({ operation: event.operation, reason: event.type });
        return;
    }
  };
}

/**
 * Times `reconcile`. Only a reconcile that succeeds is recorded: after a failed one the backend
 * does not start, and nothing is left to scrape.
 */
export async function timedReconcile<T>(reconcile: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await reconcile();
  reconcileDuration.set({}, (performance.now() - start) / 1000);
  return result;
}

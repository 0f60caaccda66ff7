/**
 * WARD_AUDIT_RETENTION_DAYS applied by each backend: once at start, then daily. Replicas may purge
 * at the same moment: purges take the audit chain's lock in turn, and the later one finds nothing
 * left to purge (and records nothing). A purge that fails is logged and tried again the next day.
 */
import type { Knex } from 'knex';
import { purgeAudit } from '../audit/retention.ts';
import type { Logger } from '../logger.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface AuditRetention {
  /** Stops the daily purge and waits for one under way. */
  stop(): Promise<void>;
}

/** `knex`: resolves with it; a backend starts this before knex is loaded (src/db/lazy-knex.ts). */
export function startAuditRetention(
  knex: () => Promise<Knex>,
  days: number | null,
  logger: Logger,
): AuditRetention {
  if (days === null) return { stop: async () => undefined };
  let running: Promise<void> = Promise.resolve();
  const purge = () => {
    running = knex()
      .then((loaded) => purgeAudit(loaded, days))
      .then(
        (purged) => {
          if (purged > 0)
            logger.info({ purged, days }, `audit trail: purged ${purged} row(s) older than ${days} day(s)`);
        },
        (error: unknown) =>
          logger.warn({ err: error }, 'audit trail: the retention purge failed; it runs again tomorrow'),
      );
  };
  purge();
  const timer = setInterval(purge, DAY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

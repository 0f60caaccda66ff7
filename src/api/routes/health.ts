/**
 * `GET /health`: outside /api/v1 and without a credential, for load balancers and
 * the container runtime. Its 503 answer keeps the health shape rather than the error shape, as
 * probes read `status`. Anyone can call it, so it says which modules drifted and how, never the
 * details (a broken manifest's absolute path): those are in the log.
 */
import type { Context } from '../../http/context.ts';
import { selectRows, type Queryable } from '../../db/pg-client.ts';
import type { DriftEntry } from '../../planner/drift.ts';
import { VERSION } from '../../version.ts';
import type { ApiRoute } from '../route.ts';

export interface HealthSources {
  /** Differences between module code on disk and what this backend runs (see planner/drift.ts). */
  drift: () => readonly DriftEntry[];
}

const HEALTH_RESPONSE = {
  type: 'object',
  required: ['status', 'version'],
  properties: {
    status: { type: 'string', examples: ['healthy'] },
    version: { type: 'string' },
    drift: {
      type: 'array',
      description: 'Modules whose code on disk differs from what this backend runs; the log has the details.',
      items: {
        type: 'object',
        properties: {
          module: { type: 'string' },
          change: { enum: ['added', 'removed', 'version_changed', 'manifest_error'] },
        },
      },
    },
  },
};

/** `db`: a backend's plain pg pool, so that it answers before knex is loaded (src/db/lazy-knex.ts). */
export function healthRoutes(deps: { db: Queryable; health: HealthSources }): ApiRoute[] {
  const health = async (ctx: Context) => {
    try {
      await selectRows(deps.db, 'select 1');
      const drift = deps.health.drift().map(({ module, change }) => ({ module, change }));
      ctx.body = { status: 'healthy', version: VERSION, ...(drift.length > 0 ? { drift } : {}) };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unhealthy', version: VERSION, reason: 'database unreachable' };
    }
  };
  return [
    {
      method: 'GET',
      path: '/health',
      fullPath: '/health',
      module: null,
      access: 'public',
      permission: null,
      summary: 'Liveness and version; 503 with status "unhealthy" when the database is unreachable',
      response: { status: 200, description: 'Healthy', schema: HEALTH_RESPONSE },
      handler: health,
    },
  ];
}

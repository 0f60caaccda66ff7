/**
 * `GET /health` (SPEC §2.9): outside /api/v1 and without a credential, for load balancers and
 * the container runtime. Its 503 answer keeps the health shape rather than the error shape, as
 * probes read `status`.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
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
  properties: { status: { type: 'string', examples: ['healthy'] }, version: { type: 'string' } },
};

export function healthRoutes(deps: { knex: Knex; health: HealthSources }): ApiRoute[] {
  const health = async (ctx: Context) => {
    try {
      await deps.knex.raw('select 1');
      const drift = deps.health.drift();
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

/**
 * `GET /api/v1/modules/-/active` (what the frontend shows, filtered per caller: a navigation entry only for holders of its permission; an inactive module, which lacks a dependency, is left out) and
 * `POST /api/v1/modules/-/restart` (admin: answers 202, then the process restarts gracefully, and
 * so does every other backend replica on the same database, as `ward modules restart` would ask
 * them; 409 and no restart when the next start would refuse, unless forced with `?force=true` or
 * `{"force": true}`). The 202 names this backend and the newest operation-log row, for a page to
 * follow the restart (modules-admin.ts).
 */
import { appendAlone } from '../../audit/record.ts';
import path from 'node:path';
import type { Context } from '../../http/context.ts';
import type { Knex } from 'knex';
import type { InstalledModule } from '../../auth/installed.ts';
import { can } from '../../auth/permissions.ts';
import { newestLogId } from '../../db/modules.ts';
import { PROCESS_ID, requestRestart, runningBackends } from '../../db/restart-signal.ts';
import { DEFAULT_NAVIGATION_ORDER, orderedNavigation } from '../../manifests/navigation.ts';
import { byName } from '../../planner/graph.ts';
import { restartRefused, type Finding } from '../../planner/preflight.ts';
import type { Logger } from '../../logger.ts';
import { callerActor, callerOf } from '../../auth/request-caller.ts';
import { ApiError } from '../../errors/api-error.ts';
import { API_PREFIX } from '../mount-modules.ts';
import type { ApiRoute } from '../route.ts';
import { invalidBody } from '../../sdk/errors.ts';
import type { BackendIdentity } from './modules-admin.ts';

export const RESTART_PERMISSION = 'base.module.restart';

const NAVIGATION_ENTRY = {
  type: 'object',
  properties: {
    label: { type: 'string' },
    path: { type: 'string' },
    permission: { type: 'string' },
    order: { type: 'integer', description: 'Lowest first; 500 when the manifest gives none.' },
  },
};

const ACTIVE_RESPONSE = {
  type: 'object',
  required: ['modules', 'navigation'],
  properties: {
    navigation: {
      type: 'array',
      description:
        "The sidebar: every entry the caller may see, with its module, in order (by `order`, then module name, then the manifest's order).",
      items: {
        ...NAVIGATION_ENTRY,
        properties: { ...NAVIGATION_ENTRY.properties, module: { type: 'string' } },
      },
    },
    modules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'version', 'navigation', 'frontend'],
        properties: {
          name: { type: 'string' },
          version: { type: 'string' },
          summary: { type: ['string', 'null'] },
          navigation: {
            type: 'array',
            description: 'Only the entries whose permission the caller holds.',
            items: NAVIGATION_ENTRY,
          },
          frontend: {
            type: ['string', 'null'],
            description: 'The layer path, as in frontend/modules.json, or null when the module ships none.',
          },
        },
      },
    },
  },
};

const RESTART_RESPONSE = {
  type: 'object',
  required: ['status', 'message', 'startId', 'lastLogId', 'replicas'],
  properties: {
    status: { const: 'restarting' },
    message: { type: 'string' },
    replicas: {
      type: 'integer',
      description: 'The other backends on this database, asked to restart too.',
    },
    startId: {
      type: 'string',
      description: 'This backend: GET /api/v1/modules/-/restart/{startId} says once another answers.',
    },
    lastLogId: {
      type: ['integer', 'null'],
      description:
        'The newest operation-log id now (0: none yet; null: the log could not be read): GET /api/v1/modules/-/log?after=<it> lists what the restart did.',
    },
  },
};

export function moduleRoutes(deps: {
  knex: Knex;
  backend: BackendIdentity;
  installed: readonly InstalledModule[];
  root: string;
  onRestart: () => void;
  preflight: () => Promise<Finding[]>;
  logger: Logger;
}): ApiRoute[] {
  const modules = [...deps.installed]
    .sort((a, b) => byName(a.module.name, b.module.name))
    .map(({ module, version }) => ({
      name: module.name,
      version,
      summary: module.manifest.summary ?? null,
      navigation: (module.manifest.navigation ?? []).map((entry) => ({
        ...entry,
        order: entry.order ?? DEFAULT_NAVIGATION_ORDER,
      })),
      // The same form as frontend/modules.json, so the frontend can match the two.
      frontend:
        module.frontend === null
          ? null
          : path.relative(deps.root, path.join(module.dir, module.frontend)).split(path.sep).join('/'),
    }));

  const active = async (ctx: Context) => {
    const { permissions } = callerOf(ctx).principal;
    const visible = modules.map((module) => ({
      ...module,
      navigation: module.navigation.filter((entry) => can(permissions, entry.permission)),
    }));
    ctx.body = { modules: visible, navigation: orderedNavigation(visible) };
  };

  const restart = async (ctx: Context) => {
    const user = callerOf(ctx).principal.username;
    const force = forced(ctx);
    if (!force) {
      const findings = await deps.preflight();
      if (findings.length > 0) {
        deps.logger.warn({ user, findings }, 'restart over HTTP refused: the next start would fail');
        const refused = restartRefused(findings, '`POST /api/v1/modules/-/restart?force=true`');
        ctx.status = 409;
        ctx.body = { error: { ...refused.toJSON(), findings } };
        return;
      }
    }
    // The other replicas restart too, each after its own check unless forced: the plan is the
    // same for all, and a replica left on the old code would serve routes the new start removed.
    const others = await otherBackends(deps.knex, deps.logger);
    if (others.length > 0) await requestRestart(deps.knex, { force, backends: others });
    await appendAlone(deps.knex, [
      {
        actor: callerActor(ctx),
        action: 'module.restart',
        kind: 'module',
        client: ctx.ip,
        detail: { requested: true, force, replicas: others.length },
      },
    ]);
    deps.logger.info({ user, replicas: others.length }, 'restart requested over HTTP');
    ctx.status = 202;
    ctx.body = {
      status: 'restarting',
      message:
        others.length === 0
          ? 'the backend restarts now; it serves again once pending module changes are applied'
          : `the backend and ${others.length} other replica(s) restart now; they serve again once pending module changes are applied`,
      replicas: others.length,
      startId: deps.backend.startId,
      lastLogId: await lastLogId(deps.knex, deps.logger),
    };
    // After the answer is out: the restart closes this server.
    ctx.res.once('close', () => deps.onRestart());
  };

  return [
    {
      method: 'GET',
      path: '/modules/-/active',
      fullPath: `${API_PREFIX}/modules/-/active`,
      module: null,
      permission: null,
      summary:
        'Active modules (installed, with every dependency active), with the navigation entries the caller may see and their frontend layer',
      response: { status: 200, description: 'Active modules', schema: ACTIVE_RESPONSE },
      handler: active,
    },
    {
      method: 'POST',
      path: '/modules/-/restart',
      fullPath: `${API_PREFIX}/modules/-/restart`,
      module: null,
      permission: RESTART_PERMISSION,
      summary:
        'Restart the backend: applies scheduled module changes. 409 restart_refused, with the findings, when the next start would refuse; ?force=true (or {"force": true}) restarts anyway',
      response: { status: 202, description: 'Restarting', schema: RESTART_RESPONSE },
      query: [
        {
          name: 'force',
          description: 'true: restart even when the next start would refuse.',
          schema: { type: 'boolean', default: false },
        },
      ],
      handler: restart,
    },
  ];
}

/** The ids of the other running backends, or none when they cannot be read (logged): this one still restarts. */
async function otherBackends(knex: Knex, logger: Logger): Promise<string[]> {
  try {
    return (await runningBackends(knex)).map((backend) => backend.id).filter((id) => id !== PROCESS_ID);
  } catch (error) {
    logger.warn({ err: error }, 'could not list the other backends to restart them too');
    return [];
  }
}

/**
 * The newest operation-log id, or null when the log cannot be read: that only costs the page its
 * starting point, and must not keep an administrator from restarting.
 */
async function lastLogId(knex: Knex, logger: Logger): Promise<number | null> {
  try {
    return await newestLogId(knex);
  } catch (error) {
    logger.warn({ err: error }, 'could not read the newest operation-log id for the restart answer');
    return null;
  }
}

/** `?force=true` or a JSON body `{"force": true}`; anything else under those names is a bad request. */
function forced(ctx: Context): boolean {
  const query = ctx.query.force;
  if (query !== undefined && query !== 'true' && query !== 'false')
    throw new ApiError(
      400,
      'bad_request',
      'force must be true or false',
      'send ?force=true, or leave it out',
    );
  const body = ctx.request.body;
  if (body === undefined) return query === 'true';
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidBody('/', 'must be an object, such as {"force": true}');
  const force = (body as { force?: unknown }).force;
  if (force !== undefined && typeof force !== 'boolean') throw invalidBody('/force', 'must be a boolean');
  return query === 'true' || force === true;
}

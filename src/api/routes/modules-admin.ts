/**
 * The modules admin page's reads, each what the matching `ward modules … --json` prints:
 * `GET /api/v1/modules` (list), `-/doctor`, `-/plan` (what the next restart would apply), `-/log`
 * (the operation log, newest first, by pages) and `-/restart/:startId`, which tells a page that
 * asked for a restart whether a new backend now answers. All need `base.module.read`. The disk
 * and the settings are read at each request, as the next start will read them.
 */
import type { Context } from '../../http/context.ts';
import type { Knex } from 'knex';
import { readModuleRows } from '../../db/modules.ts';
import { listModulesInDetail } from '../../planner/overview.ts';
import { invalidQuery } from '../../sdk/errors.ts';
import { pendingPlanReport, type ModuleSources } from '../../inspect/module-reports.ts';
import { API_PREFIX } from '../mount-modules.ts';
import type { ApiRoute, QueryParameter } from '../route.ts';

export const READ_PERMISSION = 'base.module.read';

/** Which backend process answers: a new one after every restart. */
export interface BackendIdentity {
  startId: string;
  startedAt: Date;
}

export const LOG_LIMIT = { default: 50, max: 200 };

const NULLABLE_STRING = { type: ['string', 'null'] };
const STATE = { enum: ['installed', 'uninstalled', 'to_install', 'to_upgrade', 'to_uninstall'] };
const FINDINGS = (properties: Record<string, object>) => ({
  type: 'array',
  items: { type: 'object', required: Object.keys(properties), properties },
});

const LIST_RESPONSE = {
  type: 'object',
  required: ['modules'],
  properties: {
    modules: {
      type: 'array',
      description: 'Every module on disk or in the database, by name.',
      items: {
        type: 'object',
        required: [
          'name',
          'version',
          'state',
          'category',
          'depends',
          'diskVersion',
          'errorMessage',
          'lastStateChange',
        ],
        properties: {
          name: { type: 'string' },
          version: { ...NULLABLE_STRING, description: 'The installed version, or the disk one before.' },
          state: STATE,
          category: { enum: ['official', 'community', null], description: 'null: the code is gone.' },
          depends: { type: 'array', items: { type: 'string' } },
          diskVersion: { ...NULLABLE_STRING, description: 'The code on disk now; null for an orphan.' },
          errorMessage: { ...NULLABLE_STRING, description: 'Why its last change failed or waits.' },
          lastStateChange: { ...NULLABLE_STRING, format: 'date-time' },
        },
      },
    },
  },
};

const DOCTOR_RESPONSE = {
  type: 'object',
  description: '`ward modules doctor --json`.',
  required: [
    'ok',
    'orphans',
    'missingDependencies',
    'unsatisfiedDependencies',
    'brokenRanges',
    'manifestErrors',
    'errored',
    'missingTables',
    'configuration',
  ],
  properties: {
    ok: { type: 'boolean', description: 'true when nothing is found.' },
    orphans: FINDINGS({ module: { type: 'string' }, state: { type: 'string' }, hint: { type: 'string' } }),
    missingDependencies: FINDINGS({ module: { type: 'string' }, dependency: { type: 'string' } }),
    unsatisfiedDependencies: FINDINGS({
      module: { type: 'string' },
      state: STATE,
      dependency: { type: 'string' },
      dependencyState: STATE,
      hint: { type: 'string' },
    }),
    brokenRanges: FINDINGS({
      module: { type: 'string' },
      moduleVersion: NULLABLE_STRING,
      dependency: { type: 'string' },
      range: { type: 'string' },
      version: { type: 'string' },
      message: { type: 'string' },
      hint: { type: 'string' },
    }),
    manifestErrors: FINDINGS({
      module: NULLABLE_STRING,
      file: { type: 'string' },
      path: { type: 'string' },
      message: { type: 'string' },
    }),
    errored: FINDINGS({
      module: { type: 'string' },
      state: { type: 'string' },
      errorMessage: { type: 'string' },
    }),
    missingTables: FINDINGS({ module: { type: 'string' }, table: { type: 'string' } }),
    configuration: FINDINGS({
      code: { type: 'string' },
      message: { type: 'string' },
      hint: { type: 'string' },
    }),
  },
};

const PLAN_RESPONSE = {
  type: 'object',
  description: '`ward modules plan --json`.',
  required: ['plan', 'summary'],
  properties: {
    plan: {
      type: 'object',
      required: ['actions', 'unchanged', 'blocked', 'inactive'],
      properties: {
        actions: {
          type: 'array',
          description: 'In the order the restart applies them.',
          items: {
            type: 'object',
            required: ['kind', 'module', 'fromVersion', 'toVersion', 'reason'],
            properties: {
              kind: { enum: ['install', 'upgrade', 'uninstall'] },
              module: { type: 'string' },
              fromVersion: NULLABLE_STRING,
              toVersion: NULLABLE_STRING,
              reason: {
                type: 'object',
                required: ['kind'],
                properties: { kind: { type: 'string' }, of: { type: 'string' } },
              },
            },
          },
        },
        unchanged: FINDINGS({ module: { type: 'string' }, state: STATE }),
        blocked: {
          type: 'array',
          description: 'Pending modules the restart cannot apply; the others proceed.',
          items: {
            type: 'object',
            required: ['module', 'refusal'],
            properties: {
              module: { type: 'string' },
              refusal: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
            },
          },
        },
        inactive: {
          ...FINDINGS({ module: { type: 'string' }, dependency: { type: 'string' } }),
          description:
            'Installed modules the uninstalls leave without a dependency: they stay installed but inactive until it is installed again.',
        },
      },
    },
    summary: {
      type: 'object',
      required: ['install', 'upgrade', 'uninstall'],
      properties: {
        install: { type: 'integer' },
        upgrade: { type: 'integer' },
        uninstall: { type: 'integer' },
      },
    },
  },
};

const LOG_RESPONSE = {
  type: 'object',
  required: ['entries', 'more'],
  properties: {
    entries: {
      type: 'array',
      description: 'Newest first; oldest first with `after`.',
      items: {
        type: 'object',
        required: ['id', 'run_id', 'module_name', 'operation', 'step', 'status', 'message', 'created_at'],
        properties: {
          id: { type: 'integer' },
          run_id: { type: 'string', format: 'uuid' },
          module_name: { type: 'string' },
          operation: { type: 'string', examples: ['install', 'upgrade', 'uninstall', 'orphan'] },
          step: { type: 'string', examples: ['schedule', 'migrate', 'finalize'] },
          status: { type: 'string', examples: ['started', 'done', 'failed', 'skipped'] },
          message: NULLABLE_STRING,
          created_at: { type: 'string', format: 'date-time' },
        },
      },
    },
    more: { type: 'boolean', description: 'Whether further rows lie beyond this page.' },
  },
};

const FOLLOW_RESPONSE = {
  type: 'object',
  required: ['restarted', 'startId', 'startedAt'],
  properties: {
    restarted: {
      type: 'boolean',
      description: 'true once the answer comes from another backend than the one `startId` names.',
    },
    startId: { type: 'string', description: 'The answering backend.' },
    startedAt: { type: 'string', format: 'date-time' },
  },
};

const ID = { type: 'integer', minimum: 0 };
const LOG_QUERY: QueryParameter[] = [
  {
    name: 'limit',
    description: `Rows per page, 1 to ${LOG_LIMIT.max}; default ${LOG_LIMIT.default}.`,
    schema: { type: 'integer', minimum: 1, maximum: LOG_LIMIT.max, default: LOG_LIMIT.default },
  },
  { name: 'before', description: 'Older rows than this id: the next page back.', schema: ID },
  {
    name: 'after',
    description: 'Newer rows than this id, oldest first: what happened since (`lastLogId` of a restart).',
    schema: ID,
  },
];

export interface LogQuery {
  limit: number;
  before: number | null;
  after: number | null;
}

/** Pure: the log's query parameters, or the 400 `invalid_query` naming the one that is wrong. */
export function parseLogQuery(query: Context['query']): LogQuery {
  const number = (name: string, min: number, max: number, expected: string): number | null => {
    const value = query[name];
    if (value === undefined) return null;
    const parsed = typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : Number.NaN;
    if (!(parsed >= min && parsed <= max))
      throw invalidQuery(name, `must be ${expected}, not ${JSON.stringify(value)}`);
    return parsed;
  };
  const id = 'an operation-log id (a whole number)';
  const before = number('before', 0, Number.MAX_SAFE_INTEGER, id);
  const after = number('after', 0, Number.MAX_SAFE_INTEGER, id);
  if (before !== null && after !== null)
    throw invalidQuery('after', 'cannot go with before: page back with before, follow new rows with after');
  const limit = number('limit', 1, LOG_LIMIT.max, `a whole number from 1 to ${LOG_LIMIT.max}`);
  return { limit: limit ?? LOG_LIMIT.default, before, after };
}

async function readLog(knex: Knex, { limit, before, after }: LogQuery) {
  const query = knex('core_module_operation_log')
    .select('id', 'run_id', 'module_name', 'operation', 'step', 'status', 'message', 'created_at')
    .limit(limit + 1);
  if (after !== null) query.where('id', '>', after).orderBy('id', 'asc');
  else {
    if (before !== null) query.where('id', '<', before);
    query.orderBy('id', 'desc');
  }
  const rows = (await query) as Array<{ id: string | number }>;
  return {
    entries: rows.slice(0, limit).map((row) => ({ ...row, id: Number(row.id) })),
    more: rows.length > limit,
  };
}

export function moduleAdminRoutes(deps: {
  knex: Knex;
  sources: ModuleSources;
  backend: BackendIdentity;
}): ApiRoute[] {
  const { knex, sources, backend } = deps;
  const route = (
    path: string,
    summary: string,
    response: NonNullable<ApiRoute['response']>,
    handler: (ctx: Context) => Promise<unknown>,
    query?: QueryParameter[],
  ): ApiRoute => ({
    method: 'GET',
    path,
    fullPath: `${API_PREFIX}${path}`,
    module: null,
    permission: READ_PERMISSION,
    summary,
    response,
    ...(query === undefined ? {} : { query }),
    handler: async (ctx) => {
      ctx.body = await handler(ctx);
    },
  });
  return [
    route(
      '/modules',
      'Every module on disk or in the database: state, versions, category, dependencies, last error',
      { status: 200, description: 'The modules', schema: LIST_RESPONSE },
      async () => {
        const [inventory, rows] = await Promise.all([sources.inventory(), readModuleRows(knex)]);
        return { modules: listModulesInDetail(inventory, rows) };
      },
    ),
    route(
      '/modules/-/doctor',
      'What `ward modules doctor` finds: orphans, missing or unsatisfied dependencies, manifest errors, errored modules, missing tables, settings and grants file',
      { status: 200, description: 'The findings', schema: DOCTOR_RESPONSE },
      () => sources.doctor(),
    ),
    route(
      '/modules/-/plan',
      'What the next restart would apply (the pending to_* states), as `ward modules plan`',
      { status: 200, description: 'The pending plan', schema: PLAN_RESPONSE },
      async () => pendingPlanReport(knex, await sources.inventory()),
    ),
    route(
      '/modules/-/log',
      'The module operation log, newest first, by pages (?before=<id>); ?after=<id> for what happened since, oldest first',
      { status: 200, description: 'Operation-log rows', schema: LOG_RESPONSE },
      async (ctx) => readLog(knex, parseLogQuery(ctx.query)),
      LOG_QUERY,
    ),
    route(
      '/modules/-/restart/:startId',
      'Whether the restart of backend startId (from the 202 of POST /modules/-/restart) is over: a new backend answers',
      { status: 200, description: 'The answering backend', schema: FOLLOW_RESPONSE },
      async (ctx) => ({
        restarted: ctx.params.startId !== backend.startId,
        startId: backend.startId,
        startedAt: backend.startedAt.toISOString(),
      }),
    ),
  ];
}

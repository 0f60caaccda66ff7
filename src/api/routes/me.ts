/**
 * `GET /api/v1/me`: who the caller is and everything they may do right now, resolved on the server
 * from current grants, so a stale permission list cannot happen: the server never trusts one.
 */
import type { Context } from '../../http/context.ts';
import { expand, type PermissionMap } from '../../auth/permissions.ts';
import { callerOf } from '../../auth/request-caller.ts';
import { API_PREFIX } from '../mount-modules.ts';
import type { ApiRoute } from '../route.ts';

const ME_RESPONSE = {
  type: 'object',
  required: ['user', 'roles', 'permissions', 'credential', 'mustChangePassword'],
  properties: {
    user: { type: 'object', properties: { id: { type: 'integer' }, username: { type: 'string' } } },
    roles: { type: 'array', items: { type: 'string' }, description: 'The roles this credential acts with.' },
    permissions: {
      type: 'array',
      items: { type: 'string' },
      description: 'Every permission the caller holds.',
    },
    credential: {
      type: 'object',
      properties: {
        kind: { enum: ['session', 'token'] },
        expiresAt: { type: ['string', 'null'], format: 'date-time' },
        scope: { type: ['string', 'null'], description: 'The one role a scoped API token acts with.' },
        idleSeconds: {
          type: ['number', 'null'],
          description:
            'A session ends after this many seconds without a request (this one counts); null for API tokens.',
        },
      },
    },
    csrfToken: { type: 'string', description: 'Only for cookie sessions: send as X-CSRF-Token on writes.' },
    mustChangePassword: {
      type: 'boolean',
      description: 'The user must change their password (POST /api/v1/auth/password) before anything else.',
    },
    mustEnrolTwoFactor: {
      type: 'boolean',
      description:
        'The clinic requires two-factor sign-in of this user, who must set it up (POST /api/v1/auth/two-factor/setup) before anything else.',
    },
  },
};

export function meRoutes(deps: { map: PermissionMap; idleMs: number | null }): ApiRoute[] {
  const me = async (ctx: Context) => {
    const { principal, source } = callerOf(ctx);
    const { credential } = principal;
    ctx.body = {
      user: { id: principal.userId, username: principal.username },
      roles: principal.activeRoles,
      permissions: expand(principal.permissions, deps.map.known),
      credential: {
        kind: credential.kind,
        expiresAt: credential.expiresAt?.toISOString() ?? null,
        scope: credential.kind === 'token' ? credential.scope : null,
        idleSeconds: credential.kind === 'session' && deps.idleMs !== null ? deps.idleMs / 1000 : null,
      },
      ...(credential.kind === 'session' && source === 'cookie' ? { csrfToken: credential.csrfSecret } : {}),
      mustChangePassword: principal.mustChangePassword,
      mustEnrolTwoFactor: principal.mustEnrolTwoFactor,
    };
  };
  return [
    {
      method: 'GET',
      path: '/me',
      fullPath: `${API_PREFIX}/me`,
      module: null,
      permission: null,
      summary: 'The caller: user, roles and the expanded permission list',
      beforePasswordChange: true,
      beforeTwoFactorEnrolment: true,
      response: { status: 200, description: 'The caller', schema: ME_RESPONSE },
      handler: me,
    },
  ];
}

/**
 * Sign-in and sign-out. Sign-in answers a wrong password, an unknown user and a password-less
 * service account with the same 401 and message, so it cannot be used to find usernames.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Authenticator } from '../../auth/authenticator.ts';
import { checkPassword, createSession, endSession } from '../../auth/sessions.ts';
import { callerOf, clearSessionCookie, setSessionCookie } from '../auth-middleware.ts';
import { ApiError } from '../errors.ts';
import { API_PREFIX } from '../mount-modules.ts';
import type { ApiRoute } from '../route.ts';

const LOGIN_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 150 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
};

const LOGIN_RESPONSE = {
  type: 'object',
  required: ['token', 'csrfToken', 'expiresAt', 'user'],
  properties: {
    token: {
      type: 'string',
      description: 'Session token: send as Authorization: Bearer <token>, or rely on the cookie.',
    },
    csrfToken: { type: 'string', description: 'Send as X-CSRF-Token on cookie-authenticated writes.' },
    expiresAt: { type: 'string', format: 'date-time' },
    user: {
      type: 'object',
      properties: { id: { type: 'integer' }, username: { type: 'string' } },
    },
  },
};

interface LoginBody {
  username: string;
  password: string;
}

export function authRoutes(deps: { knex: Knex; auth: Authenticator | null }): ApiRoute[] {
  const login = async (ctx: Context) => {
    if (deps.auth === null)
      throw new ApiError(
        503,
        'auth_unavailable',
        'sign-in is unavailable: the base module, which holds users, is not installed',
        'run `ward modules install base`, then restart the backend',
      );
    const body = ctx.request.body as LoginBody;
    const user = await checkPassword(deps.knex, body.username.toLowerCase(), body.password);
    if (user === null)
      throw new ApiError(
        401,
        'invalid_credentials',
        'invalid username or password',
        'check both and try again',
      );
    const session = await createSession(deps.knex, user.id);
    setSessionCookie(ctx, session.secret, session.expiresAt);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      token: session.secret,
      csrfToken: session.csrfSecret,
      expiresAt: session.expiresAt.toISOString(),
      user: { id: user.id, username: user.username },
    };
  };

  const logout = async (ctx: Context) => {
    const caller = callerOf(ctx);
    if (caller.principal.credential.kind !== 'session')
      throw new ApiError(
        400,
        'not_a_session',
        'this request is authenticated with an API token, which sign-out does not end',
        'revoke API tokens with `ward tokens revoke <id>`',
      );
    await endSession(deps.knex, caller.secret);
    deps.auth?.forget(caller.secret);
    clearSessionCookie(ctx);
    ctx.status = 204;
  };

  return [
    {
      method: 'POST',
      path: '/auth/login',
      fullPath: `${API_PREFIX}/auth/login`,
      module: null,
      access: 'public',
      permission: null,
      body: LOGIN_BODY,
      summary: 'Sign in: sets the session cookie and returns a session token and the CSRF token',
      response: { status: 200, description: 'Signed in', schema: LOGIN_RESPONSE },
      handler: login,
    },
    {
      method: 'POST',
      path: '/auth/logout',
      fullPath: `${API_PREFIX}/auth/logout`,
      module: null,
      permission: null,
      summary: 'Sign out: ends the session (cookie or session token) and clears the cookie',
      response: { status: 204, description: 'Signed out' },
      handler: logout,
    },
  ];
}

/**
 * The guards every non-public route runs, in this order: who is calling (401), CSRF for
 * cookie-authenticated writes (403), a password change Ward requires first (403
 * `password_change_required`), the route's permission (403 `permission denied: <name>`).
 * They run before the body is read, so nobody without access can make Ward parse anything.
 */
import type { Context } from '../http/context.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { PASSWORD_MIN_LENGTH } from '../auth/password.ts';
import { can } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import { callerOf, rememberCaller } from '../auth/request-caller.ts';
import { SESSION_COOKIE, presentedCredential } from './credentials.ts';
import { CSRF_HEADER, csrfProblem } from './csrf.ts';
import { ApiError } from '../errors/api-error.ts';

const unauthenticated = (message: string) =>
  new ApiError(
    401,
    'unauthenticated',
    message,
    'sign in with POST /api/v1/auth/login, or send a valid API token as Authorization: Bearer <token>',
    { headers: { 'WWW-Authenticate': 'Bearer realm="ward"' } },
  );

/** Without the base module (`auth` null) nobody can sign in or be authenticated. */
export const authUnavailable = (): ApiError =>
  new ApiError(
    503,
    'auth_unavailable',
    'sign-in is unavailable: the base module, which holds users, is not installed',
    'run `ward modules install base`, then restart the backend',
  );

const passwordChangeRequired = (username: string) =>
  new ApiError(
    403,
    'password_change_required',
    `the password of ${username} was chosen by Ward at first run: choose your own before anything else`,
    `send POST /api/v1/auth/password {"currentPassword": "…", "newPassword": "…"} (at least ${PASSWORD_MIN_LENGTH} characters); GET /api/v1/me and sign-out work meanwhile`,
  );

/**
 * `auth` is null when the base module is not installed: then nobody can be authenticated.
 * `beforePasswordChange`: the route also answers a user who must change their password first;
 * `beforeTwoFactorEnrolment`: one who must set up two-factor sign-in first.
 */
export function authenticate(
  auth: Authenticator | null,
  options: { beforePasswordChange?: boolean; beforeTwoFactorEnrolment?: boolean } = {},
): (ctx: Context) => void | Promise<void> {
  // Not async: a principal from the cache is checked at once, without a promise (see Authenticator).
  return (ctx: Context) => {
    if (auth === null) throw authUnavailable();
    // Node's header rather than ctx.get('Authorization'): this runs on every authenticated request.
    const presented = presentedCredential(ctx.req.headers.authorization, () =>
      ctx.cookies.get(SESSION_COOKIE),
    );
    if (presented.kind === 'none')
      throw unauthenticated('this route needs a signed-in user, and the request has no credential');
    if (presented.kind === 'malformed') throw unauthenticated(presented.problem);
    const found = auth.authenticate(presented.secret);
    return found instanceof Promise
      ? found.then((principal) => admit(ctx, presented, principal, options))
      : admit(ctx, presented, found, options);
  };
}

/** The checks on the principal a credential stands for, once it is known. */
function admit(
  ctx: Context,
  presented: { source: 'cookie' | 'bearer'; secret: string },
  principal: Principal | null,
  options: { beforePasswordChange?: boolean; beforeTwoFactorEnrolment?: boolean },
): void {
  // The cookie carries sessions only: an API token planted in it would skip the CSRF check.
  if (principal === null || (presented.source === 'cookie' && principal.credential.kind !== 'session')) {
    if (presented.source === 'cookie') clearSessionCookie(ctx);
    throw unauthenticated(
      `the ${presented.source === 'cookie' ? 'session cookie' : 'bearer token'} is invalid, expired or revoked`,
    );
  }
  if (principal.credential.kind === 'session') {
    // Bearer session tokens pass the check: only a cookie is sent without the page asking.
    const problem = csrfProblem(
      ctx.method,
      presented.source,
      ctx.get(CSRF_HEADER) || undefined,
      principal.credential.csrfSecret,
    );
    if (problem !== null)
      throw new ApiError(
        403,
        'csrf_failed',
        problem,
        `send the csrfToken from sign-in (or GET /api/v1/me) in ${CSRF_HEADER}, or use Authorization: Bearer`,
      );
  }
  if (principal.mustChangePassword && options.beforePasswordChange !== true)
    throw passwordChangeRequired(principal.username);
  if (principal.mustEnrolTwoFactor && options.beforeTwoFactorEnrolment !== true)
    throw new ApiError(
      403,
      'two_factor_enrolment_required',
      `this clinic requires two-factor sign-in of ${principal.username}, who has not set it up`,
      'set it up first: POST /api/v1/auth/two-factor/setup, then POST /api/v1/auth/two-factor/confirm {"code"}; GET /api/v1/me and sign-out work meanwhile',
    );
  rememberCaller(ctx, { principal, source: presented.source, secret: presented.secret });
}

export function requirePermission(permission: string): (ctx: Context) => void {
  return (ctx: Context) => {
    if (!can(callerOf(ctx).principal.permissions, permission))
      throw new ApiError(
        403,
        'permission_denied',
        `permission denied: ${permission}`,
        `ask an administrator for a role that grants ${permission} (ward users grant <user> <role>)`,
      );
  };
}

export function setSessionCookie(ctx: Context, secret: string, expires: Date): void {
  ctx.cookies.set(SESSION_COOKIE, secret, {
    httpOnly: true,
    // Strict: the cookie is only for Ward's own frontend calling its API, never for links from elsewhere.
    sameSite: 'strict',
    secure: ctx.secure,
    path: '/',
    expires,
    overwrite: true,
  });
}

export function clearSessionCookie(ctx: Context): void {
  setSessionCookie(ctx, '', new Date(0));
}

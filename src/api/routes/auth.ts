/**
 * Sign-in and sign-out. Sign-in answers a wrong password, an unknown user and a password-less
 * service account with the same 401 and message, so it cannot be used to find usernames; too many
 * failures for a username or from an address get 429 before any password is checked (throttle.ts),
 * and a sign-in whose turn to be checked does not come gets 503 (hash-limit.ts). A successful
 * sign-in leaves the browser a device cookie: that browser is then trusted for the username, and
 * other people's failures at its address no longer hold it back.
 */
import type { Context } from '../../http/context.ts';
import type { Knex } from 'knex';
import type { SealingKey } from '../../auth/secret-seal.ts';
import type { Authenticator } from '../../auth/authenticator.ts';
import { DEVICE_CLIENT, type Admissions } from '../../auth/hash-limit.ts';
import { removeFirstAdminPassword } from '../../auth/first-admin.ts';
import { hashPassword } from '../../auth/password.ts';
import { newPasswordProblem } from '../../auth/password-policy.ts';
import { checkPassword, createSession, endSession, type NewSession } from '../../auth/sessions.ts';
import {
  challengeUser,
  checkSecondFactor,
  createChallenge,
  endChallenge,
  hasTwoFactor,
} from '../../auth/two-factor.ts';
import { hashSecret } from '../../auth/tokens.ts';
import { mustChangePassword, setPasswordHash, type UserRow } from '../../auth/users.ts';
import { USERNAME } from '../../auth/names.ts';
import type { SignInRefusal } from '../../auth/throttle.ts';
import {
  DEVICE_TRUST_MS,
  deviceHash,
  newDeviceSecret,
  type SignInThrottle,
} from '../../auth/throttle-store.ts';
import type { Logger } from '../../logger.ts';
import { authUnavailable, clearSessionCookie, setSessionCookie } from '../auth-middleware.ts';
import { appendAlone } from '../../audit/record.ts';
import { callerBy, callerOf } from '../../auth/request-caller.ts';
import { actingTransaction, signInActor } from '../../db/acting.ts';
import { ApiError } from '../../errors/api-error.ts';
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
  description:
    'A session; or, for a user with two-factor sign-in, only {secondFactorRequired: true, challenge, challengeExpiresAt}: send the challenge with a code to POST /api/v1/auth/login/second-factor.',
  properties: {
    secondFactorRequired: { type: 'boolean' },
    challenge: { type: 'string' },
    challengeExpiresAt: { type: 'string', format: 'date-time' },
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
    mustChangePassword: {
      type: 'boolean',
      description:
        'Ward chose the password (first run): every route but GET /me, sign-out and POST /auth/password answers 403 password_change_required until it is changed.',
    },
  },
};

const PASSWORD_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['currentPassword', 'newPassword'],
  properties: {
    currentPassword: { type: 'string', minLength: 1, maxLength: 1024 },
    newPassword: { type: 'string', minLength: 1, maxLength: 1024 },
  },
};

interface PasswordBody {
  currentPassword: string;
  newPassword: string;
}

const SECOND_FACTOR_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['challenge'],
  oneOf: [{ required: ['code'] }, { required: ['recoveryCode'] }],
  properties: {
    challenge: { type: 'string', minLength: 1, maxLength: 100 },
    code: {
      type: 'string',
      minLength: 1,
      maxLength: 20,
      description: 'The 6 digits the authenticator app shows.',
    },
    recoveryCode: {
      type: 'string',
      minLength: 1,
      maxLength: 40,
      description: 'One of the recovery codes; works once.',
    },
  },
};

interface SecondFactorBody {
  challenge: string;
  code?: string;
  recoveryCode?: string;
}

interface LoginBody {
  username: string;
  password: string;
}

const REFUSED = {
  pair: {
    subject: 'for this username from this address',
    hint: 'wait, then try again; an administrator can set a new password with `ward users set-password`',
  },
  user: {
    subject: 'for this username from all addresses together; each address may try once a minute',
    hint: 'wait, then try again; someone may be guessing this password: the log has their addresses',
  },
  address: {
    subject: 'from this address',
    hint: 'wait, then try again; if a device or script here retries a wrong password, stop it',
  },
  network: {
    subject: 'from this network (IPv6 /48)',
    hint: 'wait, then try again; if a device or script in this network retries a wrong password, stop it',
  },
};

export function tooManySignIns(refusal: SignInRefusal): ApiError {
  const { subject, hint } = REFUSED[refusal.reason];
  return new ApiError(
    429,
    'too_many_sign_ins',
    `too many failed sign-ins ${subject}; try again in ${refusal.retryAfterSeconds} s`,
    hint,
    { headers: { 'Retry-After': String(refusal.retryAfterSeconds) } },
  );
}

/**
 * The browser's device secret: sent only to the sign-in and password routes, never readable by
 * scripts, and only from Ward's own pages.
 */
export const DEVICE_COOKIE = 'ward_device';
const DEVICE_COOKIE_PATH = `${API_PREFIX}/auth/`;

function setDeviceCookie(ctx: Context, secret: string): void {
  ctx.cookies.set(DEVICE_COOKIE, secret, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.secure,
    path: DEVICE_COOKIE_PATH,
    expires: new Date(Date.now() + DEVICE_TRUST_MS),
    overwrite: true,
  });
}

export const signInBusy = (): ApiError =>
  new ApiError(
    503,
    'sign_in_busy',
    'too many sign-ins are being checked at once; try again in 1 s',
    'wait a second, then try again; if it keeps happening, someone may be flooding sign-in',
    { headers: { 'Retry-After': '1' } },
  );

/**
 * What the log may say of a typed username: people type passwords into the username field, so
 * anything that cannot be a username is not written down.
 */
const loggedName = (typed: string): string => {
  const name = typed.toLowerCase();
  return USERNAME.test(name) ? name : '(not a valid username)';
};

export function authRoutes(deps: {
  knex: Knex;
  auth: Authenticator | null;
  throttle: SignInThrottle;
  /** Places for sign-ins that will hash a password: no turn within the wait, and a sign-in gets 503. */
  hashing: Admissions;
  logger: Logger;
  /** Where the first admin's password file is, deleted once that password is changed. */
  storageDir: string;
  /** Opens the two-factor secrets (SECRET_KEY); null when it is not set. */
  sealingKey: SealingKey | null;
}): ApiRoute[] {
  /** Writes of a sign-in once the password named its user: that user acts, with no session yet. */
  const signingIn = <T>(userId: number, work: (trx: Knex.Transaction) => Promise<T>) =>
    actingTransaction(deps.knex, signInActor(userId), work);

  const login = async (ctx: Context) => {
    if (deps.auth === null) throw authUnavailable();
    const body = ctx.request.body as LoginBody;
    // Sign-in outcomes are security events: who, from where, and why refused, never a password.
    const event = { username: loggedName(body.username), ip: ctx.ip };
    const device = deviceHash(ctx.cookies.get(DEVICE_COOKIE));
    // A trusted browser waits for its turn in a line of its own, not behind its address's.
    const trusted = device !== null && (await deps.throttle.trusted(body.username, device));
    // First: refused for want of a place, an attempt costs nothing and counts for nothing.
    const leave = await deps.hashing.enter(trusted ? DEVICE_CLIENT + device.toString('base64') : ctx.ip);
    if (leave === null) {
      deps.logger.warn(event, 'sign-in refused: busy');
      throw signInBusy();
    }
    // The place is held while the password is checked, not while the session is written.
    let checked: { user: UserRow | null; trusted: boolean };
    try {
      checked = await checkedPassword(ctx, body, event, device);
    } finally {
      leave();
    }
    await passwordChecked(ctx, body, event, device, checked, deps.auth);
  };

  /**
   * A failed sign-in, in the audit trail: nobody known acts; the name typed, cleaned as the text log
   * cleans it (a password typed into the username field must not be kept), and why it failed.
   */
  const failed = (ctx: Context, username: string, reason: string) =>
    appendAlone(deps.knex, [
      {
        actor: 'anonymous',
        action: 'auth.sign_in_failed',
        kind: 'user',
        client: ctx.ip,
        outcome: 'refused',
        detail: { username, reason },
      },
    ]);

  const checkedPassword = async (
    ctx: Context,
    body: LoginBody,
    event: { username: string; ip: string },
    device: Buffer | null,
  ) => {
    // Before the password: a refused attempt must cost no scrypt work and say nothing about it.
    const decision = await deps.throttle.attempt(body.username, ctx.ip, device);
    if (!decision.allowed) {
      deps.logger.warn(
        { ...event, limit: decision.reason, retryAfterSeconds: decision.retryAfterSeconds },
        'sign-in throttled',
      );
      await failed(ctx, event.username, 'throttled');
      throw tooManySignIns(decision);
    }
    return {
      user: await checkPassword(deps.knex, body.username.toLowerCase(), body.password),
      trusted: decision.trusted,
    };
  };

  const passwordChecked = async (
    ctx: Context,
    body: LoginBody,
    event: { username: string; ip: string },
    device: Buffer | null,
    { user, trusted }: { user: UserRow | null; trusted: boolean },
    auth: Authenticator,
  ) => {
    if (user !== null && (await hasTwoFactor(deps.knex, user.id))) {
      // The password alone gets no session: a challenge, which the second step trades for one.
      // The throttle counts passwords, so the right one resets it; the browser is trusted (its
      // cookie set) only once the second step signs in.
      await deps.throttle.succeeded(body.username, ctx.ip, trusted, trusted ? device : null);
      const { challenge, expiresAt } = await signingIn(user.id, (trx) => createChallenge(trx, user.id));
      deps.logger.info(
        { ...event, userId: user.id, trustedBrowser: trusted },
        'sign-in: password right, second factor asked',
      );
      ctx.body = { secondFactorRequired: true, challenge, challengeExpiresAt: expiresAt.toISOString() };
      return;
    }
    // No session also when the user was disabled while the password was being checked.
    const session =
      user === null ? null : await createSession(deps.knex, user.id, { idleMs: auth.idleMs, client: ctx.ip });
    if (user === null || session === null) {
      deps.logger.warn(event, 'sign-in failed');
      await failed(ctx, event.username, 'invalid_credentials');
      throw new ApiError(
        401,
        'invalid_credentials',
        'invalid username or password',
        'check both and try again',
      );
    }
    // Only now: a sign-in refused after the password stays a failure.
    const secret = await deviceSecret(ctx, device, trusted);
    await deps.throttle.succeeded(body.username, ctx.ip, trusted, deviceHash(secret));
    await signedIn(ctx, user, session, secret, { ...event, trustedBrowser: trusted });
  };

  /**
   * The device secret a signed-in browser keeps: one already trusted for someone keeps its own, so
   * that a shared workstation stays trusted for each of its users; any other gets a new one.
   */
  const deviceSecret = async (ctx: Context, device: Buffer | null, trusted: boolean): Promise<string> => {
    const known = device !== null && (trusted || (await deps.throttle.known(device)));
    return known ? (ctx.cookies.get(DEVICE_COOKIE) as string) : newDeviceSecret();
  };

  const signedIn = async (
    ctx: Context,
    user: { id: number; username: string },
    session: NewSession,
    secret: string,
    event: { username: string; ip: string; trustedBrowser?: boolean },
  ) => {
    deps.logger.info({ ...event, userId: user.id }, 'signed in');
    setSessionCookie(ctx, session.secret, session.expiresAt);
    setDeviceCookie(ctx, secret);
    ctx.body = {
      token: session.secret,
      csrfToken: session.csrfSecret,
      expiresAt: session.expiresAt.toISOString(),
      user: { id: user.id, username: user.username },
      mustChangePassword: await mustChangePassword(deps.knex, user.id),
    };
  };

  const secondFactor = async (ctx: Context) => {
    if (deps.auth === null) throw authUnavailable();
    const body = ctx.request.body as SecondFactorBody;
    const userId = await challengeUser(deps.knex, body.challenge);
    if (userId === null)
      throw new ApiError(
        401,
        'challenge_expired',
        'this sign-in has expired or was never started',
        'sign in again with username and password (POST /api/v1/auth/login); the code step must follow within 5 minutes',
      );
    const user = (await deps.knex('base_user').where({ id: userId }).first('id', 'username')) as {
      id: number;
      username: string;
    };
    const event = { username: user.username, ip: ctx.ip };
    const checked = await signingIn(userId, (trx) => checkSecondFactor(trx, deps.sealingKey, userId, body));
    if (checked.outcome === 'locked') {
      await signingIn(userId, (trx) => endChallenge(trx, body.challenge));
      const seconds = Math.max(1, Math.ceil(((checked.lockedUntil?.getTime() ?? 0) - Date.now()) / 1000));
      deps.logger.warn({ ...event, userId }, 'sign-in: second factor locked after wrong codes');
      await failed(ctx, user.username, 'too_many_codes');
      throw new ApiError(
        429,
        'too_many_codes',
        `too many wrong codes for this user; try again in ${seconds} s`,
        'wait, then sign in again; if you did not try these codes, someone who knows your password did: change it',
        { headers: { 'Retry-After': String(seconds) } },
      );
    }
    if (checked.outcome === 'wrong') {
      deps.logger.warn({ ...event, userId }, 'sign-in: wrong second-factor code');
      await failed(ctx, user.username, 'wrong_code');
      throw new ApiError(
        401,
        'wrong_code',
        'the code is not right',
        'type the 6 digits your authenticator app shows now (each works once), or one of your recovery codes',
      );
    }
    await signingIn(userId, (trx) => endChallenge(trx, body.challenge));
    const session = await createSession(deps.knex, userId, { idleMs: deps.auth.idleMs, client: ctx.ip });
    if (session === null)
      throw new ApiError(
        401,
        'invalid_credentials',
        'invalid username or password',
        'check both and try again',
      );
    // Both factors were right: the browser is trusted for the user, as after a password alone.
    const secret = await deviceSecret(ctx, deviceHash(ctx.cookies.get(DEVICE_COOKIE)), false);
    // `trusted` true: the password step already reset the counts; this only trusts the browser.
    await deps.throttle.succeeded(user.username, ctx.ip, true, deviceHash(secret));
    await signedIn(ctx, user, session, secret, event);
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
    await endSession(deps.knex, caller.secret, callerBy(ctx));
    deps.auth?.forget(caller.secret);
    deps.logger.info(
      { username: caller.principal.username, userId: caller.principal.userId, ip: ctx.ip },
      'signed out',
    );
    clearSessionCookie(ctx);
    ctx.status = 204;
  };

  /** Users whose password change is running in this process. */
  const changing = new Set<number>();

  const changePassword = async (ctx: Context) => {
    const { principal } = callerOf(ctx);
    const body = ctx.request.body as PasswordBody;
    const problem = await newPasswordProblem(body.newPassword, principal.username);
    if (problem !== null) throw new ApiError(422, problem.code, problem.message, problem.hint);
    if (body.newPassword === body.currentPassword)
      throw new ApiError(
        422,
        'same_password',
        'the new password is the current one',
        'choose a password different from the one you have',
      );
    const event = { username: principal.username, userId: principal.userId, ip: ctx.ip };
    // One change per user at a time: two at once would each hash, and the later write would win.
    if (changing.has(principal.userId))
      throw new ApiError(
        409,
        'password_change_in_progress',
        'a password change for this user is already in progress',
        'wait for it to finish, then sign in with the password it set',
      );
    // It hashes twice (the current password, the new one): it takes a place as a sign-in does.
    const leave = await deps.hashing.enter(ctx.ip);
    if (leave === null) {
      deps.logger.warn(event, 'password change refused: busy');
      throw signInBusy();
    }
    changing.add(principal.userId);
    try {
      await checkedChange(ctx, body, event);
    } finally {
      changing.delete(principal.userId);
      leave();
    }
  };

  const checkedChange = async (
    ctx: Context,
    body: PasswordBody,
    event: { username: string; userId: number; ip: string },
  ) => {
    const { principal, secret } = callerOf(ctx);
    // The current password is checked here as at sign-in, so guessing it here is throttled alike.
    const device = deviceHash(ctx.cookies.get(DEVICE_COOKIE));
    const decision = await deps.throttle.attempt(principal.username, ctx.ip, device);
    if (!decision.allowed) {
      deps.logger.warn({ ...event, limit: decision.reason }, 'password change throttled');
      throw tooManySignIns(decision);
    }
    const user = await checkPassword(deps.knex, principal.username, body.currentPassword);
    if (user?.id !== principal.userId) {
      deps.logger.warn(event, 'password change refused: wrong current password');
      throw new ApiError(
        403,
        'wrong_password',
        'the current password is not right',
        'send the password you signed in with; if it is lost, an operator can set one with `ward users set-password`',
      );
    }
    // A trusted browser's attempt was counted on it: the success resets it there.
    await deps.throttle.succeeded(
      principal.username,
      ctx.ip,
      decision.trusted,
      decision.trusted ? device : null,
    );
    // The browser this is done in stays signed in; every other session of the user ends, and
    // every API token of the user is revoked.
    const keepSession = principal.credential.kind === 'session' ? hashSecret(secret) : null;
    const { sessionsEnded, tokensRevoked } = await setPasswordHash(
      deps.knex,
      user.id,
      await hashPassword(body.newPassword),
      { keepSession },
      callerBy(ctx),
    );
    deps.auth?.forget(secret);
    if (principal.mustChangePassword) await removeFirstAdminPassword(deps.storageDir);
    deps.logger.info({ ...event, sessionsEnded, tokensRevoked }, 'password changed');
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
      summary:
        'Sign in: sets the session cookie and the device cookie (the browser is then trusted for the username) and returns a session token and the CSRF token (429 TooManyRequests after repeated failures; 503 with Retry-After when no turn to check it came for 10 s)',
      response: { status: 200, description: 'Signed in', schema: LOGIN_RESPONSE },
      handler: login,
    },
    {
      method: 'POST',
      path: '/auth/login/second-factor',
      fullPath: `${API_PREFIX}/auth/login/second-factor`,
      module: null,
      access: 'public',
      permission: null,
      body: SECOND_FACTOR_BODY,
      summary:
        'Sign in, second step: the challenge from POST /auth/login and a TOTP code or a recovery code; answers as sign-in does (401 wrong_code or challenge_expired; 429 too_many_codes after 5 wrong codes in a row, for 5 minutes)',
      response: { status: 200, description: 'Signed in', schema: LOGIN_RESPONSE },
      handler: secondFactor,
    },
    {
      method: 'POST',
      path: '/auth/logout',
      fullPath: `${API_PREFIX}/auth/logout`,
      module: null,
      permission: null,
      summary: 'Sign out: ends the session (cookie or session token) and clears the cookie',
      response: { status: 204, description: 'Signed out' },
      beforePasswordChange: true,
      beforeTwoFactorEnrolment: true,
      handler: logout,
    },
    {
      method: 'POST',
      path: '/auth/password',
      fullPath: `${API_PREFIX}/auth/password`,
      module: null,
      permission: null,
      body: PASSWORD_BODY,
      summary:
        "Change the caller's password (the current one and a new one of 12 characters or more that is not easy to guess: 422 weak_password or guessable_password); ends the user's other sessions (429 after repeated wrong current passwords, 503 with Retry-After when no turn to check it came for 10 s, 409 while another change for the user runs)",
      response: { status: 204, description: 'Changed' },
      beforePasswordChange: true,
      beforeTwoFactorEnrolment: true,
      handler: changePassword,
    },
  ];
}

/**
 * A user's own two-factor sign-in: its state, setting it up (a secret shown once, as an otpauth://
 * URI and a QR code to scan), confirming it with a code (which puts it in force and hands out the
 * recovery codes, once), and turning it off with the password. Open to a user whom the clinic
 * requires to set it up before anything else.
 */
import type { Context } from '../../http/context.ts';
import type { Knex } from 'knex';
import type { SealingKey } from '../../auth/secret-seal.ts';
import type { Authenticator } from '../../auth/authenticator.ts';
import type { Admissions } from '../../auth/hash-limit.ts';
import { checkPassword } from '../../auth/sessions.ts';
import { deviceHash, type SignInThrottle } from '../../auth/throttle-store.ts';
import {
  confirmEnrolment,
  disableTwoFactor,
  startEnrolment,
  twoFactorRequired,
  twoFactorStatus,
  type TwoFactorPolicy,
} from '../../auth/two-factor.ts';
import type { Logger } from '../../logger.ts';
import { callerBy, callerOf } from '../../auth/request-caller.ts';
import { ApiError } from '../../errors/api-error.ts';
import { API_PREFIX } from '../mount-modules.ts';
import type { ApiRoute } from '../route.ts';
import { DEVICE_COOKIE, signInBusy, tooManySignIns } from './auth.ts';

const CODE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['code'],
  properties: { code: { type: 'string', minLength: 1, maxLength: 20 } },
};

const PASSWORD_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['password'],
  properties: { password: { type: 'string', minLength: 1, maxLength: 1024 } },
};

const route = (
  method: 'GET' | 'POST',
  path: string,
  summary: string,
  handler: (ctx: Context) => Promise<void>,
  extra: Partial<ApiRoute> = {},
): ApiRoute => ({
  method,
  path,
  fullPath: `${API_PREFIX}${path}`,
  module: null,
  permission: null,
  summary,
  beforeTwoFactorEnrolment: true,
  handler,
  ...extra,
});

export function twoFactorRoutes(deps: {
  knex: Knex;
  /** To drop the caller's cached principal at once: whether they must enrol changes now. */
  auth: Authenticator | null;
  policy: TwoFactorPolicy;
  throttle: SignInThrottle;
  hashing: Admissions;
  logger: Logger;
  /** Seals and opens the two-factor secrets (SECRET_KEY); null when it is not set. */
  sealingKey: SealingKey | null;
}): ApiRoute[] {
  const { knex } = deps;

  const status = async (ctx: Context) => {
    const { principal } = callerOf(ctx);
    ctx.body = {
      ...(await twoFactorStatus(knex, principal.userId)),
      required: twoFactorRequired(deps.policy, principal.roles),
    };
  };

  const setup = async (ctx: Context) => {
    const { principal } = callerOf(ctx);
    const started = await startEnrolment(
      knex,
      deps.sealingKey,
      { id: principal.userId, username: principal.username },
      callerBy(ctx),
    );
    if (started === null)
      throw new ApiError(
        409,
        'two_factor_enabled',
        'two-factor sign-in is already set up for this user',
        'to move it to another device, turn it off (POST /api/v1/auth/two-factor/disable {"password"}) and set it up again',
      );
    deps.logger.info({ userId: principal.userId, ip: ctx.ip }, 'two-factor setup started');
    ctx.body = {
      secret: started.secret,
      otpauthUri: started.uri,
      // Loaded here, not at start: only this answer draws a QR code.
      qrSvg: (await import('uqr')).renderSVG(started.uri, { border: 2 }),
    };
  };

  const confirm = async (ctx: Context) => {
    const { principal } = callerOf(ctx);
    const { code } = ctx.request.body as { code: string };
    const result = await confirmEnrolment(knex, deps.sealingKey, principal.userId, code, callerBy(ctx));
    if (result === 'no_enrolment' || result === 'already')
      throw new ApiError(
        409,
        result === 'already' ? 'two_factor_enabled' : 'no_two_factor_setup',
        result === 'already'
          ? 'two-factor sign-in is already set up for this user'
          : 'there is no two-factor setup to confirm',
        'start one with POST /api/v1/auth/two-factor/setup',
      );
    if (result === 'wrong_code')
      throw new ApiError(
        422,
        'wrong_code',
        'the code is not right',
        "type the 6 digits the authenticator app shows now for Ward; check that the phone's clock is right",
      );
    deps.auth?.forget(callerOf(ctx).secret);
    deps.logger.info({ userId: principal.userId, ip: ctx.ip }, 'two-factor sign-in set up');
    ctx.body = result;
  };

  const disable = async (ctx: Context) => {
    const { principal } = callerOf(ctx);
    const { password } = ctx.request.body as { password: string };
    // A password check, throttled and admitted as sign-in's is.
    const leave = await deps.hashing.enter(ctx.ip);
    if (leave === null) throw signInBusy();
    try {
      const device = deviceHash(ctx.cookies.get(DEVICE_COOKIE));
      const decision = await deps.throttle.attempt(principal.username, ctx.ip, device);
      if (!decision.allowed) throw tooManySignIns(decision);
      const user = await checkPassword(knex, principal.username, password);
      if (user?.id !== principal.userId)
        throw new ApiError(
          403,
          'wrong_password',
          'the password is not right',
          'send the password you sign in with; an administrator can turn two-factor sign-in off for you',
        );
      // A trusted browser's attempt was counted on it: the success resets it there.
      await deps.throttle.succeeded(
        principal.username,
        ctx.ip,
        decision.trusted,
        decision.trusted ? device : null,
      );
    } finally {
      leave();
    }
    if (!(await disableTwoFactor(knex, principal.userId, callerBy(ctx))))
      throw new ApiError(
        409,
        'two_factor_not_enabled',
        'two-factor sign-in is not set up for this user',
        'set it up with POST /api/v1/auth/two-factor/setup',
      );
    deps.auth?.forget(callerOf(ctx).secret);
    deps.logger.info({ userId: principal.userId, ip: ctx.ip }, 'two-factor sign-in turned off');
    ctx.status = 204;
  };

  return [
    route(
      'GET',
      '/auth/two-factor',
      "The caller's two-factor sign-in: {enabled, recoveryCodesLeft, required}",
      status,
    ),
    route(
      'POST',
      '/auth/two-factor/setup',
      'Start setting up two-factor sign-in: {secret, otpauthUri, qrSvg}, shown this once (409 two_factor_enabled)',
      setup,
    ),
    route(
      'POST',
      '/auth/two-factor/confirm',
      'Confirm the setup with a code from the app: {recoveryCodes}, shown this once (422 wrong_code)',
      confirm,
      { body: CODE_BODY },
    ),
    route(
      'POST',
      '/auth/two-factor/disable',
      "Turn two-factor sign-in off with the caller's password (403 wrong_password)",
      disable,
      { body: PASSWORD_BODY, response: { status: 204, description: 'Turned off' } },
    ),
  ];
}

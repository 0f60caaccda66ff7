/**
 * Staff administration for holders of `base.user.manage`: users with their roles, creating one
 * with a temporary password (the person chooses their own at first sign-in), granting and
 * removing roles, disabling and enabling, resetting a password to a temporary one, and the
 * user's API tokens, listed and revoked. The same rules as `ward users …`: every refusal is a 4xx
 * that changes nothing. An administrator cannot disable themself or take away their own admin
 * role, which could leave the clinic with nobody to undo it.
 */
import type { Context } from '../../http/context.ts';
import type { Knex } from 'knex';
import { listApiTokens, revokeApiToken } from '../../auth/api-tokens.ts';
import { USERNAME } from '../../auth/names.ts';
import { hashPassword } from '../../auth/password.ts';
import { newPasswordProblem } from '../../auth/password-policy.ts';
import { knownRoles, type PermissionMap } from '../../auth/permissions.ts';
import { disableTwoFactor } from '../../auth/two-factor.ts';
import {
  createUser,
  disableUser,
  enableUser,
  findUser,
  grantRole,
  isDisabled,
  listUsers,
  revokeRole,
  setPasswordHash,
  type UserRow,
} from '../../auth/users.ts';
import { isWardError } from '../../errors/ward-error.ts';
import type { Logger } from '../../logger.ts';
import { callerBy as by, callerOf } from '../../auth/request-caller.ts';
import { ApiError } from '../../errors/api-error.ts';
import { API_PREFIX } from '../mount-modules.ts';
import type { ApiRoute } from '../route.ts';

export const MANAGE = 'base.user.manage';

const ROLE = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const PASSWORD = { type: 'string', minLength: 1, maxLength: 1024 };

const CREATE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['username', 'temporaryPassword'],
  properties: {
    username: { type: 'string', pattern: USERNAME.source },
    roles: { type: 'array', items: ROLE, maxItems: 50, uniqueItems: true },
    temporaryPassword: PASSWORD,
  },
};

const ROLE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['role'],
  properties: { role: ROLE },
};

const RESET_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['temporaryPassword'],
  properties: { temporaryPassword: PASSWORD },
};

export function userRoutes(deps: { knex: Knex; map: PermissionMap; logger: Logger }): ApiRoute[] {
  const { knex } = deps;
  const roles = knownRoles(deps.map);

  const assertKnownRole = (role: string) => {
    if (!roles.includes(role))
      throw new ApiError(
        422,
        'unknown_role',
        `no installed module and no grants file defines the role ${role}`,
        `known roles: ${roles.join(', ') || 'none'}`,
      );
  };

  const target = async (ctx: Context): Promise<UserRow> => {
    const name = String(ctx.params.username);
    const user = USERNAME.test(name) ? await findUser(knex, name) : undefined;
    if (user === undefined)
      throw new ApiError(
        404,
        'unknown_user',
        `there is no user ${name}`,
        'list users with GET /api/v1/users',
      );
    return user;
  };

  const notYourself = (ctx: Context, user: UserRow, what: string) => {
    if (callerOf(ctx).principal.userId === user.id)
      throw new ApiError(
        409,
        'own_account',
        `you cannot ${what} your own account here`,
        'ask another administrator, or use `ward users` on the server',
      );
  };

  const checkedPassword = async (password: string, username: string) => {
    const problem = await newPasswordProblem(password, username);
    if (problem !== null) throw new ApiError(422, problem.code, problem.message, problem.hint);
    return hashPassword(password);
  };

  const log = (ctx: Context, event: string, fields: object) =>
    deps.logger.info({ by: callerOf(ctx).principal.username, ip: ctx.ip, ...fields }, event);

  const list = async (ctx: Context) => {
    const users = await listUsers(knex);
    const withTwoFactor = new Set(
      (await knex('base_user_totp').whereNotNull('confirmed_at').pluck('user_id')) as number[],
    );
    ctx.body = {
      users: users.map((user) => ({
        ...user,
        twoFactor: withTwoFactor.has(user.id),
        mustChangePassword: user.hasPassword && user.passwordChangedAt === null,
      })),
      roles,
    };
  };

  const create = async (ctx: Context) => {
    const body = ctx.request.body as { username: string; roles?: string[]; temporaryPassword: string };
    const wanted = [...new Set(body.roles ?? [])].sort();
    wanted.forEach(assertKnownRole);
    const passwordHash = await checkedPassword(body.temporaryPassword, body.username);
    try {
      const id = await createUser(
        knex,
        { username: body.username, passwordHash, roles: wanted, mustChangePassword: true },
        by(ctx),
      );
      log(ctx, 'user created', { userId: id, username: body.username, roles: wanted });
      ctx.status = 201;
      ctx.body = { id, username: body.username, roles: wanted, mustChangePassword: true };
    } catch (error) {
      if (isWardError(error) && error.code === 'user_exists')
        throw new ApiError(
          409,
          'user_exists',
          `user ${body.username} already exists`,
          'choose another username',
        );
      throw error;
    }
  };

  const grant = async (ctx: Context) => {
    const user = await target(ctx);
    const { role } = ctx.request.body as { role: string };
    assertKnownRole(role);
    const granted = await grantRole(knex, user.id, role, by(ctx));
    if (granted) log(ctx, 'role granted', { userId: user.id, role });
    ctx.body = { username: user.username, role, changed: granted };
  };

  const revoke = async (ctx: Context) => {
    const user = await target(ctx);
    const role = String(ctx.params.role);
    if (role === 'admin') notYourself(ctx, user, 'remove the admin role from');
    const removed = await revokeRole(knex, user.id, role, by(ctx));
    if (removed) log(ctx, 'role removed', { userId: user.id, role });
    ctx.body = { username: user.username, role, changed: removed };
  };

  const disable = async (ctx: Context) => {
    const user = await target(ctx);
    notYourself(ctx, user, 'disable');
    const done = await disableUser(knex, user, by(ctx));
    if (done !== null) log(ctx, 'user disabled', { userId: user.id, ...done });
    ctx.body = {
      username: user.username,
      changed: done !== null,
      ...(done ?? { sessionsEnded: 0, tokensRevoked: 0 }),
    };
  };

  const enable = async (ctx: Context) => {
    const user = await target(ctx);
    const done = await enableUser(knex, user, by(ctx));
    if (done) log(ctx, 'user enabled', { userId: user.id });
    ctx.body = { username: user.username, changed: done };
  };

  const reset = async (ctx: Context) => {
    const user = await target(ctx);
    notYourself(ctx, user, 'reset the password of');
    if (isDisabled(user.password_hash))
      throw new ApiError(409, 'user_disabled', `user ${user.username} is disabled`, 'enable the user first');
    const { temporaryPassword } = ctx.request.body as { temporaryPassword: string };
    const hash = await checkedPassword(temporaryPassword, user.username);
    const set = await setPasswordHash(knex, user.id, hash, { temporary: true }, by(ctx));
    log(ctx, 'password reset', { userId: user.id, ...set });
    ctx.body = { username: user.username, mustChangePassword: true, ...set };
  };

  const resetTwoFactor = async (ctx: Context) => {
    const user = await target(ctx);
    const removed = await disableTwoFactor(knex, user.id, by(ctx));
    if (removed) log(ctx, 'two-factor sign-in turned off', { userId: user.id });
    ctx.body = { username: user.username, changed: removed };
  };

  const tokens = async (ctx: Context) => {
    const user = await target(ctx);
    ctx.body = { tokens: await listApiTokens(knex, { userId: user.id }) };
  };

  const revokeToken = async (ctx: Context) => {
    const user = await target(ctx);
    const id = Number(ctx.params.id);
    const owned =
      Number.isSafeInteger(id) && (await knex('base_api_token').where({ id, user_id: user.id }).first('id'));
    if (!owned)
      throw new ApiError(
        404,
        'unknown_token',
        `user ${user.username} has no API token ${String(ctx.params.id)}`,
        `list them with GET /api/v1/users/${user.username}/tokens`,
      );
    const result = await revokeApiToken(knex, id, by(ctx));
    if (result === 'revoked') log(ctx, 'API token revoked', { userId: user.id, tokenId: id });
    ctx.body = { id, changed: result === 'revoked' };
  };

  const route = (
    method: ApiRoute['method'],
    path: string,
    summary: string,
    handler: (ctx: Context) => Promise<void>,
    body?: object,
  ): ApiRoute => ({
    method,
    path,
    fullPath: `${API_PREFIX}${path}`,
    module: null,
    permission: MANAGE,
    summary,
    handler,
    ...(body === undefined ? {} : { body }),
  });

  return [
    route('GET', '/users', 'Every user with roles, state and two-factor sign-in; and the known roles', list),
    route(
      'POST',
      '/users',
      'Create a user with a temporary password, which they must replace at first sign-in (201; 409 user_exists)',
      create,
      CREATE_BODY,
    ),
    route(
      'POST',
      '/users/:username/roles',
      'Grant a role (changed: false when already held)',
      grant,
      ROLE_BODY,
    ),
    route('DELETE', '/users/:username/roles/:role', 'Remove a role (changed: false when not held)', revoke),
    route(
      'POST',
      '/users/:username/disable',
      'Disable: ends sessions, revokes API tokens, locks the password',
      disable,
    ),
    route('POST', '/users/:username/enable', 'Enable again, with the password the user had', enable),
    route(
      'POST',
      '/users/:username/password',
      'Reset the password to a temporary one the user must replace at next sign-in; ends their sessions, revokes their tokens',
      reset,
      RESET_BODY,
    ),
    route(
      'POST',
      '/users/:username/two-factor/disable',
      "Turn off the user's two-factor sign-in (a lost phone)",
      resetTwoFactor,
    ),
    route('GET', '/users/:username/tokens', "The user's API tokens (never their secrets)", tokens),
    route('POST', '/users/:username/tokens/:id/revoke', 'Revoke one of the user’s API tokens', revokeToken),
  ];
}

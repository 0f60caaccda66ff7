/**
 * Who is calling: the user, the roles the credential acts with and their permissions, resolved from
 * what the database stores for a credential (`toPrincipal`, pure) against the permission map of this
 * process. Expired, revoked or unknown credentials resolve to null.
 */
import { twoFactorRequired, type TwoFactorPolicy } from './two-factor.ts';
import { effectiveRoles, permissionsOf, type PermissionMap, type PermissionSet } from './permissions.ts';

export interface SessionCredential {
  kind: 'session';
  /** Names the session in `ward.actor`: the first 16 hex digits of its stored hash (never the secret). */
  ref: string;
  csrfSecret: string;
  expiresAt: Date;
  /** The last request with it that a backend recorded (at most SESSION_TOUCH_MS behind). */
  lastSeenAt: Date;
}

export interface TokenCredential {
  kind: 'token';
  id: number;
  name: string | null;
  /** The one role the token acts with, or null for all of its user's roles. */
  scope: string | null;
  expiresAt: Date | null;
}

export interface Principal {
  userId: number;
  username: string;
  /** Every role the user holds. */
  roles: readonly string[];
  /** The roles this credential acts with: `roles`, or a scoped token's one role. */
  activeRoles: readonly string[];
  permissions: PermissionSet;
  credential: SessionCredential | TokenCredential;
  /** Ward chose the user's password (first run): every route but /me, sign-out and the change refuses them. */
  mustChangePassword: boolean;
  /** The clinic requires a second factor of this user, who has none: only enrolment, /me and sign-out answer. */
  mustEnrolTwoFactor: boolean;
}

/** A credential's row joined with its user and the user's roles, as `credential-store.ts` reads it. */
export interface StoredCredential {
  userId: number;
  username: string;
  roles: string[];
  credential: SessionCredential | TokenCredential;
  revokedAt: Date | null;
  mustChangePassword: boolean;
  /** The user has a confirmed second factor. */
  hasTwoFactor: boolean;
}

export function isExpired(credential: Principal['credential'], now: number): boolean {
  return credential.expiresAt !== null && credential.expiresAt.getTime() <= now;
}

export function toPrincipal(
  stored: StoredCredential | null,
  map: PermissionMap,
  now: number,
  policy: TwoFactorPolicy = 'off',
): Principal | null {
  if (stored === null || stored.revokedAt !== null || isExpired(stored.credential, now)) return null;
  const scope = stored.credential.kind === 'token' ? stored.credential.scope : null;
  const activeRoles = effectiveRoles(stored.roles, scope);
  return {
    userId: stored.userId,
    username: stored.username,
    roles: stored.roles,
    activeRoles,
    permissions: permissionsOf(map, activeRoles),
    credential: stored.credential,
    mustChangePassword: stored.mustChangePassword,
    // An API token is made by an operator with shell access, never with the password alone.
    mustEnrolTwoFactor:
      stored.credential.kind === 'session' && !stored.hasTwoFactor && twoFactorRequired(policy, stored.roles),
  };
}

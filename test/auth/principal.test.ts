import test from 'ava';
import { buildPermissionMap, can } from '../../src/auth/permissions.ts';
import { toPrincipal, type StoredCredential } from '../../src/auth/principal.ts';

const map = buildPermissionMap([{ name: 'intake', manifest: { role_permissions: { admin: ['*'] } } }], {
  sync_agent: ['intake.binary.write'],
});
const NOW = Date.parse('2026-01-01T00:00:00Z');

const token = (
  overrides: Partial<StoredCredential> & { scope?: string | null; expiresAt?: Date | null } = {},
): StoredCredential => ({
  userId: 1,
  username: 'sync',
  roles: ['admin', 'sync_agent'],
  revokedAt: null,
  mustChangePassword: false,
  hasTwoFactor: false,
  ...overrides,
  credential: {
    kind: 'token',
    id: 1,
    name: null,
    scope: overrides.scope ?? null,
    expiresAt: overrides.expiresAt ?? null,
  },
});

test('a token acts with every role of its user, or only its scope', (t) => {
  const full = toPrincipal(token(), map, NOW);
  t.deepEqual(full?.activeRoles, ['admin', 'sync_agent']);
  t.true(can(full!.permissions, 'intake.job.execute'));
  const scoped = toPrincipal(token({ scope: 'sync_agent' }), map, NOW);
  t.deepEqual(scoped?.activeRoles, ['sync_agent']);
  t.false(can(scoped!.permissions, 'intake.job.execute'));
  t.true(can(scoped!.permissions, 'intake.binary.write'));
});

test('revoked, expired and unknown credentials are nobody', (t) => {
  t.is(toPrincipal(null, map, NOW), null);
  t.is(toPrincipal(token({ revokedAt: new Date(NOW - 1) }), map, NOW), null);
  t.is(toPrincipal(token({ expiresAt: new Date(NOW) }), map, NOW), null);
  t.truthy(toPrincipal(token({ expiresAt: new Date(NOW + 1) }), map, NOW));
});

test('a user who must change their password carries that into the principal', (t) => {
  t.true(toPrincipal(token({ mustChangePassword: true }), map, NOW)?.mustChangePassword);
  t.false(toPrincipal(token(), map, NOW)?.mustChangePassword);
});

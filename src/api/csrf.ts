/**
 * CSRF: a browser sends the session cookie with any request to Ward, even one a hostile page
 * triggers. So a cookie-authenticated request that changes state must also carry X-CSRF-Token,
 * the session's CSRF secret that sign-in (and GET /api/v1/me) returned, which another origin
 * cannot read. Bearer requests need nothing: a page cannot make the browser add that header.
 */
import { safeEqual } from '../auth/tokens.ts';

export const CSRF_HEADER = 'X-CSRF-Token';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Why the request fails the check, or null when it passes. Pure. */
export function csrfProblem(
  method: string,
  source: 'cookie' | 'bearer',
  header: string | undefined,
  secret: string,
): string | null {
  if (source === 'bearer' || SAFE_METHODS.has(method)) return null;
  if (header === undefined || header === '')
    return `missing ${CSRF_HEADER} header: a cookie-authenticated ${method} must send the CSRF token returned at sign-in`;
  return safeEqual(header, secret)
    ? null
    : `the ${CSRF_HEADER} header does not match this session's CSRF token`;
}

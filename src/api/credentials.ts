/**
 * Where a request's credential comes from: `Authorization: Bearer <secret>` (API tokens and session
 * tokens) or else the session cookie. An Authorization header that is present wins, even when bad:
 * falling back to the cookie would make a broken client act as whoever is signed in in the browser.
 */
export const SESSION_COOKIE = 'ward_session';

export type Presented =
  | { kind: 'none' }
  | { kind: 'malformed'; problem: string }
  | { kind: 'credential'; source: 'cookie' | 'bearer'; secret: string };

const BEARER = /^Bearer +(\S+)\s*$/i;

/** Pure. `cookie` is read only when there is no Authorization header: parsing cookies costs. */
export function presentedCredential(
  authorization: string | undefined,
  cookie: () => string | undefined,
): Presented {
  if (authorization !== undefined && authorization !== '') {
    const match = BEARER.exec(authorization);
    if (match === null)
      return { kind: 'malformed', problem: 'the Authorization header is not of the form "Bearer <token>"' };
    return { kind: 'credential', source: 'bearer', secret: match[1] as string };
  }
  const session = cookie();
  if (session !== undefined && session !== '')
    return { kind: 'credential', source: 'cookie', secret: session };
  return { kind: 'none' };
}

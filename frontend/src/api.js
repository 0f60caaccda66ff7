/**
 * The client the shell and layers call Ward with: same origin, so the session cookie goes along;
 * writes carry the session's CSRF token; Ward's `{error: {code, message, hint}}` becomes a thrown
 * ApiRequestError. A 401 on any call means the session is gone: `onSignedOut` sends the user to
 * sign-in, which brings them back to the page they were on. A 403 may mean a role was revoked
 * since the sidebar was drawn: `onForbidden` has the shell read the user's permissions again.
 */
import { ApiRequestError } from '@ward/ui';

const API_PREFIX = '/api/v1';
const SAFE = new Set(['GET', 'HEAD']);

/** A path under /api/v1 may be given without it: `api.get('/patients')`. */
const apiUrl = (path) => (path.startsWith('/api/') || path === '/health' ? path : `${API_PREFIX}${path}`);

async function errorOf(response) {
  const text = await response.text().catch(() => '');
  try {
    const { error } = JSON.parse(text);
    if (error && typeof error.message === 'string') return new ApiRequestError(response.status, error);
  } catch {
    // Not Ward's error shape (a proxy's page, a dropped connection): described below.
  }
  return new ApiRequestError(response.status, {
    code: 'unexpected_response',
    message: `the server answered ${response.status} ${response.statusText} without Ward's error details`,
    hint: 'check that the Ward backend is running and reachable',
  });
}

/**
 * `session.csrfToken` is read at each write, so a new sign-in's token is used at once.
 * `onSignedOut()` is called on a 401, `onForbidden()` on a 403, of any request but the ones sent
 * with `{signIn: true}`.
 */
export function createApi(session, onSignedOut, onForbidden) {
  async function request(method, path, body, options = {}) {
    const headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (!SAFE.has(method) && session.csrfToken) headers['x-csrf-token'] = session.csrfToken;
    let response;
    try {
      response = await fetch(apiUrl(path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'same-origin',
        signal: options.signal,
      });
    } catch (cause) {
      if (cause?.name === 'AbortError') throw cause;
      throw new ApiRequestError(0, {
        code: 'network_error',
        message: `cannot reach the Ward backend (${method} ${apiUrl(path)})`,
        hint: 'check your connection, and that the backend is running',
      });
    }
    if (!response.ok) {
      const error = await errorOf(response);
      if (response.status === 401 && !options.signIn) onSignedOut(error);
      if (response.status === 403 && !options.signIn) onForbidden(error);
      throw error;
    }
    if (response.status === 204) return null;
    const type = response.headers.get('content-type') ?? '';
    return type.includes('json') ? response.json() : response.text();
  }
  return Object.freeze({
    request,
    get: (path, options) => request('GET', path, undefined, options),
    post: (path, body, options) => request('POST', path, body, options),
    put: (path, body, options) => request('PUT', path, body, options),
    patch: (path, body, options) => request('PATCH', path, body, options),
    delete: (path, options) => request('DELETE', path, undefined, options),
  });
}

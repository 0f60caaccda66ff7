/**
 * The client the shell and layers call Ward with: same origin, so the session cookie goes along;
 * writes carry the session's CSRF token; Ward's `{error: {code, message, hint}}` becomes a thrown
 * ApiRequestError. A 401 on any call means the session is gone: `onSignedOut` sends the user to
 * sign-in, which brings them back to the page they were on. A 403 may mean a role was revoked
 * since the sidebar was drawn: `onForbidden` has the shell read the user's permissions again.
 * Every other answer means the session was used: `onAnswered` lets the shell move its idle end on.
 */
import { ApiRequestError } from './ui/forms.js';

const API_PREFIX = '/api/v1';
const SAFE = new Set(['GET', 'HEAD']);

/** A path under /api/v1 may be given without it: `api.get('/patients')`. */
const apiUrl = (path) => (path.startsWith('/api/') || path === '/health' ? path : `${API_PREFIX}${path}`);

/** Ward's error in an answer's text, or one that says the answer was not Ward's. */
function errorFrom(status, statusText, text) {
  try {
    const { error } = JSON.parse(text);
    if (error && typeof error.message === 'string') return new ApiRequestError(status, error);
  } catch {
    // Not Ward's error shape (a proxy's page, a dropped connection): described below.
  }
  return new ApiRequestError(status, {
    code: 'unexpected_response',
    message: `the server answered ${status} ${statusText} without Ward's error details`,
    hint: 'check that the Ward backend is running and reachable',
  });
}

async function errorOf(response) {
  return errorFrom(response.status, response.statusText, await response.text().catch(() => ''));
}

const unreachable = (method, path) =>
  new ApiRequestError(0, {
    code: 'network_error',
    message: `cannot reach the Ward backend (${method} ${apiUrl(path)})`,
    hint: 'check your connection, and that the backend is running',
  });

/**
 * `session.csrfToken` is read at each write, so a new sign-in's token is used at once.
 * `onSignedOut()` is called on a 401, `onForbidden()` on a 403, of any request (uploads included)
 * but the ones sent with `{signIn: true}`; `onAnswered()` on any answer but a 401, unless sent
 * with `{usesSession: false}` (a sign-out: the session it answers for is gone).
 */
export function createApi(session, onSignedOut, onForbidden, onAnswered = () => undefined) {
  function answered(status, options) {
    if (status !== 401 && options.usesSession !== false) onAnswered();
  }

  function failed(error, options) {
    if (error.status === 401 && !options.signIn) onSignedOut(error);
    if (error.status === 403 && !options.signIn) onForbidden(error);
    return error;
  }

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
      throw unreachable(method, path);
    }
    answered(response.status, options);
    if (!response.ok) throw failed(await errorOf(response), options);
    if (response.status === 204) return null;
    const type = response.headers.get('content-type') ?? '';
    return type.includes('json') ? response.json() : response.text();
  }

  /**
   * POSTs `body` (a File or Blob) as the raw request body, with its type as `content-type` unless
   * `headers` names one. XMLHttpRequest, not fetch: only it reports upload progress, to
   * `onProgress(percent)`. Answers and fails as `request` does.
   */
  function upload(path, body, options = {}) {
    return new Promise((resolve, reject) => {
      const xhr = new globalThis.XMLHttpRequest();
      xhr.open('POST', apiUrl(path));
      xhr.withCredentials = true;
      const headers = {
        accept: 'application/json',
        'content-type': body.type || 'application/octet-stream',
        ...Object.fromEntries(
          Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
        ),
      };
      if (session.csrfToken) headers['x-csrf-token'] = session.csrfToken;
      for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
      const { onProgress, signal } = options;
      if (onProgress) {
        xhr.upload.addEventListener('progress', (event) => {
          if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
        });
        xhr.upload.addEventListener('load', () => onProgress(100));
      }
      xhr.addEventListener('load', () => {
        answered(xhr.status, options);
        if (xhr.status < 200 || xhr.status > 299) {
          reject(failed(errorFrom(xhr.status, xhr.statusText, xhr.responseText), options));
          return;
        }
        if (xhr.status === 204) {
          resolve(null);
          return;
        }
        const type = xhr.getResponseHeader('content-type') ?? '';
        try {
          resolve(type.includes('json') ? JSON.parse(xhr.responseText) : xhr.responseText);
        } catch {
          reject(errorFrom(xhr.status, xhr.statusText, ''));
        }
      });
      xhr.addEventListener('error', () => reject(unreachable('POST', path)));
      xhr.addEventListener('abort', () =>
        reject(new globalThis.DOMException('the upload was aborted', 'AbortError')),
      );
      signal?.addEventListener('abort', () => xhr.abort());
      xhr.send(body);
    });
  }
  return Object.freeze({
    request,
    upload,
    get: (path, options) => request('GET', path, undefined, options),
    post: (path, body, options) => request('POST', path, body, options),
    put: (path, body, options) => request('PUT', path, body, options),
    patch: (path, body, options) => request('PATCH', path, body, options),
    delete: (path, options) => request('DELETE', path, undefined, options),
  });
}

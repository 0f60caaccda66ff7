/**
 * POST /jobs takes the source file as the raw request body, and the shell's `api` sends JSON only;
 * so the upload is this one fetch, with the session's CSRF token (GET /me) as `api` would send it.
 */
import { ApiRequestError } from '@ward/ui';
import { JOBS } from './shared.js';

async function errorOf(response) {
  const text = await response.text().catch(() => '');
  try {
    const { error } = JSON.parse(text);
    if (error && typeof error.message === 'string') return new ApiRequestError(response.status, error);
  } catch {
    // Not Ward's error shape (a proxy's page): described below.
  }
  return new ApiRequestError(response.status, {
    code: 'unexpected_response',
    message: `the server answered ${response.status} ${response.statusText} without Ward's error details`,
    hint: 'check that the Ward backend is running and reachable',
  });
}

/** Creates a job from `file`; resolves to the job, or throws ApiRequestError. */
export async function uploadSource(context, { file, format, sourceSystem }) {
  const { csrfToken } = await context.api.get('/me');
  const query = new URLSearchParams({ format, source_system: sourceSystem });
  const headers = { accept: 'application/json', 'content-type': file.type || 'application/octet-stream' };
  if (csrfToken) headers['x-csrf-token'] = csrfToken;
  let response;
  try {
    response = await fetch(`/api/v1${JOBS}?${query}`, {
      method: 'POST',
      headers,
      body: file,
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiRequestError(0, {
      code: 'network_error',
      message: 'the upload did not reach the Ward backend',
      hint: 'check your connection, and that the backend is running; then upload again',
    });
  }
  if (response.ok) return response.json();
  const error = await errorOf(response);
  // The shell's client signs the user out on a 401; a request through it does so here too.
  if (response.status === 401) await context.api.get('/me').catch(() => {});
  throw error;
}

/**
 * Requests as an operator counts them: by method, route template and status, with how long the
 * backend took to answer. The route is the template the router matched
 * (`/api/v1/patients/patients/:id`), never the path asked for, so that the number of series stays
 * bounded whatever clients send.
 */
import { metrics } from '../metrics/registry.ts';
import { API_PREFIX } from './mount-modules.ts';

/** Requests no route matched: the web shell and its files answer them, or a 404 does. */
export const FRONTEND_ROUTE = '(frontend)';
export const UNMATCHED_ROUTE = '(unmatched)';

const requestDuration = metrics.histogram<'method' | 'route' | 'status'>({
  name: 'ward_http_request_duration_seconds',
  help: 'HTTP requests, by method, route template and status: seconds from arrival until the answer was ready to send (its _count is the number of requests).',
  labelNames: ['method', 'route', 'status'],
});

/**
 * Pure: the route label of a request. `matched` is what the router recorded (the template of the
 * route that answered, if one did); anything else is the frontend's or unmatched under the API.
 */
export function routeLabel(matched: unknown, path: string): string {
  if (typeof matched === 'string') return matched;
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`) ? UNMATCHED_ROUTE : FRONTEND_ROUTE;
}

export interface AnsweredRequest {
  method: string;
  path: string;
  status: number;
  /** The router's `ctx.matchedRoute`. */
  matchedRoute: unknown;
}

export function observeRequest(request: AnsweredRequest, seconds: number): void {
  requestDuration.observe(
    {
      method: request.method,
      route: routeLabel(request.matchedRoute, request.path),
      status: request.status,
    },
    seconds,
  );
}

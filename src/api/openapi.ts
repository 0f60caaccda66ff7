/**
 * The OpenAPI 3.1 document, generated from the routes that are mounted (Ward's own and every
 * module's), so it cannot drift from what the server does. Pure.
 */
import { CSRF_HEADER } from './csrf.ts';
import { SESSION_COOKIE } from './credentials.ts';
import type { ApiRoute } from './route.ts';

type Json = Record<string, unknown>;

const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every error response has this shape.',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'hint'],
      additionalProperties: false,
      properties: {
        code: {
          type: 'string',
          description: 'Stable, machine-readable: branch on this.',
          examples: ['permission_denied', 'unauthenticated', 'invalid_body'],
        },
        message: {
          type: 'string',
          description: 'What went wrong, for people.',
          examples: ['permission denied: migration_import.job.execute'],
        },
        hint: { type: 'string', description: 'What to do about it.' },
      },
    },
  },
};

/** Error responses by name; each route lists the ones it can give under their status. */
const ERRORS: Record<string, string> = {
  BadRequest:
    'The body is not UTF-8 (`invalid_utf8`) or not well-formed JSON (`invalid_json`), or a query parameter is malformed or out of range (`invalid_query`).',
  Unauthorized: 'No credential, or an invalid, expired or revoked one (`unauthenticated`).',
  Forbidden:
    "The caller lacks the route's permission (`permission_denied`, message `permission denied: <permission>`), or a cookie-authenticated write lacks a valid X-CSRF-Token (`csrf_failed`).",
  NotFound: 'No such route or resource (`not_found`).',
  PayloadTooLarge: 'The body exceeds the size limit (`body_too_large`).',
  UnsupportedMediaType: 'The body is not UTF-8 JSON (`unsupported_media_type`).',
  UnprocessableEntity:
    "The body does not match the route's schema; the message names the JSON path (`invalid_body`).",
  TooManyRequests:
    'Sign-in only: too many failed sign-ins for the username or from the address (`too_many_sign_ins`); the Retry-After header gives the seconds to wait.',
  ServiceUnavailable:
    'A dependency is unavailable: the database, the base module, or a module whose routes failed to load.',
  InternalError: 'A bug; the details are in the backend log (`internal_error`).',
};

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** Koa paths (`/jobs/:id`) to OpenAPI paths (`/jobs/{id}`) with their parameters. */
export function openApiPath(path: string): { path: string; parameters: Json[] } {
  const parameters: Json[] = [];
  const converted = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    return `{${name}}`;
  });
  return { path: converted, parameters };
}

function operation(route: ApiRoute): Json {
  const { parameters } = openApiPath(route.fullPath);
  const responses: Json = {};
  const success = route.response ?? { status: 200, description: 'Success' };
  responses[String(success.status)] = {
    description: success.description,
    ...(success.schema === undefined ? {} : { content: { 'application/json': { schema: success.schema } } }),
  };
  const json = route.rawBody !== true && route.method !== 'GET' && route.method !== 'DELETE';
  if (route.query !== undefined) responses['400'] = ref('BadRequest');
  if (json)
    Object.assign(responses, {
      '400': ref('BadRequest'),
      '413': ref('PayloadTooLarge'),
      '415': ref('UnsupportedMediaType'),
    });
  if (route.body !== undefined) responses['422'] = ref('UnprocessableEntity');
  if (route.access !== 'public')
    Object.assign(responses, { '401': ref('Unauthorized'), '403': ref('Forbidden') });
  responses.default = ref('InternalError');
  const permission =
    route.access === 'public'
      ? 'No credential needed.'
      : route.permission === null
        ? 'Any signed-in caller.'
        : `Requires permission \`${route.permission}\`.`;
  return {
    ...(route.summary === undefined ? {} : { summary: route.summary }),
    description: permission,
    operationId: `${route.method.toLowerCase()}${route.fullPath.replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ?? '').toUpperCase())}`,
    tags: [route.module ?? 'ward'],
    ...(route.access === 'public' ? { security: [] } : {}),
    ...(route.permission === null || route.permission === undefined
      ? {}
      : { 'x-ward-permission': route.permission }),
    ...(parameters.length > 0 || route.query !== undefined
      ? {
          parameters: [
            ...parameters,
            ...(route.query ?? []).map(({ name, description, schema }) => ({
              name,
              in: 'query',
              required: false,
              description,
              schema,
            })),
          ],
        }
      : {}),
    ...(route.body !== undefined
      ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } }
      : route.rawBody === true
        ? {
            requestBody: {
              content: {
                'application/octet-stream': {
                  schema: { type: 'string', contentMediaType: 'application/octet-stream' },
                },
              },
            },
          }
        : {}),
    responses,
  };
}

export function openApiDocument(routes: readonly ApiRoute[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const { path } = openApiPath(route.fullPath);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ward',
      version,
      description: [
        'Clinic management backend. Every route lives under /api/v1; module routes under /api/v1/<module>/.',
        '',
        'Authentication: `Authorization: Bearer <token>` (an API token, or the session token from sign-in), or the',
        `\`${SESSION_COOKIE}\` cookie set at sign-in. Cookie-authenticated POST, PUT, PATCH and DELETE requests must`,
        `also send \`${CSRF_HEADER}\` with the csrfToken returned at sign-in.`,
        '',
        'Errors: every error response is `{"error": {"code", "message", "hint"}}` (schema `Error`). A missing',
        'permission is 403 with the message `permission denied: <permission>`.',
      ].join('\n'),
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([name, description]) => [
          name,
          {
            description,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (`ward tokens create`) or a session token.',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `Writes also need the ${CSRF_HEADER} header.`,
        },
      },
    },
  };
}

/** `GET /api/v1/openapi.json`: public, as API tooling reads it before anyone signs in; it holds no data. */
import { API_PREFIX } from '../mount-modules.ts';
import type { ApiRoute } from '../route.ts';

export function openApiRoutes(document: () => object): ApiRoute[] {
  return [
    {
      method: 'GET',
      path: '/openapi.json',
      fullPath: `${API_PREFIX}/openapi.json`,
      module: null,
      access: 'public',
      permission: null,
      summary: 'This document',
      response: { status: 200, description: 'The OpenAPI 3.1 document' },
      handler: async (ctx) => {
        ctx.body = document();
      },
    },
  ];
}

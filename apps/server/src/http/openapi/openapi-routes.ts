import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document.js';
import { ROUTE_DOCS } from './route-docs.js';

/** One management route as Fastify registered it: `GET`, `/api/token/:id`. */
export interface RegisteredRoute {
  method: string;
  path: string;
}

export const OPENAPI_PATH = '/api/openapi.json';

/**
 * Serves the OpenAPI 3.1 description of /api at `GET /api/openapi.json` (public). Call it before
 * any other route: an onRoute hook records every /api route registered after it, so the
 * description lists what the app really serves; the document is built once, on first request.
 * Returns the recorded list (the drift test compares it with the documented routes).
 */
export function openapiRoutes(app: FastifyInstance, context: Pick<AppContext, 'version'>): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (options) => {
    if (!options.url.startsWith('/api/')) return;
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    for (const method of methods) if (method !== 'HEAD') routes.push({ method, path: options.url });
  });

  let document: OpenApiDocument | undefined;
  app.get(OPENAPI_PATH, async (_request, reply) => {
    document ??= buildOpenApiDocument(routes, ROUTE_DOCS, { version: context.version });
    void reply.header('cache-control', 'public, max-age=300');
    return document;
  });
  return routes;
}

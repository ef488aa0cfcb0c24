import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify';

/** Whether the router serves this method and path with a route of its own (not the console's catch-all). */
function served(app: FastifyInstance, method: string, path: string): boolean {
  let route: ReturnType<FastifyInstance['findRoute']>;
  try {
    route = app.findRoute({ method: method as 'GET', url: path });
  } catch {
    // A path that does not decode: left to the router, which answers it (frameworkErrors).
    return false;
  }
  if (route === null) return false;
  const params = route.params as Record<string, string | undefined>;
  // The static files' `/*` matches every GET path; only a route of the management API counts.
  if (params['*'] !== undefined) return false;
  // `/api/channel/test/` fills /api/channel/test/:id with an empty id; gin matches no empty
  // parameter, so the path is /api/channel/test's (a route with its empty id answers only when
  // no route serves the other form).
  for (const name in params) if (params[name] === '') return false;
  return true;
}

/**
 * Fastify's `rewriteUrl` (run before routing): an /api path that differs from a registered route
 * only by its trailing slash is routed to that route, as new-api (gin's RedirectTrailingSlash)
 * serves both forms, but answered directly instead of redirected. Each route is registered once,
 * in one form; the router keeps `ignoreTrailingSlash: false`, so the printed routes (the route
 * walks, the OpenAPI keys) are the paths as registered. Relay and console paths pass through on
 * the first test: the relay's hot path pays one `startsWith`.
 */
export function apiTrailingSlash(this: FastifyInstance, request: RawRequestDefaultExpression): string {
  const url = request.url ?? '/';
  if (!url.startsWith('/api/')) return url;
  const method = request.method ?? 'GET';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (served(this, method, path)) return url;
  const other = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
  if (other === '/api' || !served(this, method, other)) return url;
  return query === -1 ? other : other + url.slice(query);
}

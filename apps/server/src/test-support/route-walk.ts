import type { FastifyInstance } from 'fastify';

/** A registered route: one method of one path pattern. */
export interface WalkedRoute {
  method: string;
  /** As registered, e.g. /v1beta/models/:model. */
  path: string;
}

/**
 * Every route Fastify holds, read from `app.printRoutes({ commonPrefix: false })`, one per method
 * (HEAD left out): tests that walk them all hold a route added tomorrow to the same rules.
 */
export function routesOf(app: FastifyInstance): WalkedRoute[] {
  const routes: WalkedRoute[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)[└├]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    prefixes.length = depth;
    const parent = depth > 0 ? prefixes[depth - 1]! : '';
    // find-my-way prints a wildcard child without the slash before it (`/v1beta/models` → `*`).
    const path = match[2] === '*' && depth > 0 && !parent.endsWith('/') ? `${parent}/*` : parent + match[2]!;
    prefixes[depth] = path;
    for (const method of (match[3] ?? '').split(', ')) if (method !== '' && method !== 'HEAD') routes.push({ method, path });
  }
  return routes;
}

import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { isMjModePath, isRelayPath } from './caller-protocol.js';

/** A route that takes all of these takes any method: a catch-all, which cannot refuse one. */
const CATCH_ALL_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

interface RecordedRoute {
  pattern: RegExp;
  methods: string[];
}

/** `/v1beta/models/:model` → a RegExp matching the paths the route serves (parameters and `*`). */
function patternOf(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z_][\w-]*(?:\([^)]*\))?|\*)/)
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * The methods each relay route answers, recorded as the routes are registered (an onRoute hook,
 * so a route added tomorrow is known without a list to extend). A relay path that a route serves
 * under other methods is answered 405 with `Allow` instead of the catch-all's 501 or a 404.
 */
export class RouteMethods {
  private readonly routes: RecordedRoute[] = [];

  /** Records every relay route registered after this call. */
  static install(app: FastifyInstance): RouteMethods {
    const recorded = new RouteMethods();
    app.addHook('onRoute', (route) => {
      if (!isRelayPath(route.url) && !isMjModePath(route.url)) return;
      const methods = [route.method].flat().map((method) => method.toUpperCase());
      if (CATCH_ALL_METHODS.every((method) => methods.includes(method))) return;
      recorded.routes.push({ pattern: patternOf(route.url), methods });
    });
    return recorded;
  }

  /** The methods the routes serving this path answer, sorted; empty when no route serves it. */
  allowedFor(url: string): string[] {
    const path = url.split('?')[0]!;
    const allowed = new Set<string>();
    for (const route of this.routes) {
      if (route.pattern.test(path)) for (const method of route.methods) allowed.add(method);
    }
    return [...allowed].sort();
  }

  /**
   * The 405 for a method the path's routes do not answer, with their methods for the `Allow`
   * header; undefined when no route serves the path under any method.
   */
  refusal(method: string, url: string): { error: AppError; allow: string } | undefined {
    const allowed = this.allowedFor(url);
    if (allowed.length === 0 || allowed.includes(method)) return undefined;
    const path = url.split('?')[0]!;
    const allow = allowed.join(', ');
    const error = new AppError('request:method_not_allowed', `${path} 不支持 ${method} 方法，请使用 ${allow} (method ${method} not allowed; use ${allow})`, {
      status: 405,
    });
    return { error, allow };
  }
}

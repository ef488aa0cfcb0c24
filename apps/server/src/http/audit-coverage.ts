import type { AuditAction } from '@modelgate/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isAdmin } from '@modelgate/contract';
import type { AppContext } from '../app-context.js';
import type { AuditActor, AuditRecord } from '../domain/audit/audit-log.js';
import { currentUser, guardLevelOf, type RoleLevel } from '../middleware/auth.js';

/** What a route declares about the audit log: the actions it records, or why it records none. */
export type AuditDeclaration = { actions: readonly AuditAction[] } | { reason: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    audit?: AuditDeclaration;
  }
  interface FastifyInstance {
    /** The /api routes with their guard level and audit declaration (trackAuditCoverage). */
    auditCoverage: CoveredRoute[];
  }
}

/** Route options of an admin write route that records these actions: `{ preHandler: admin, ...audited('user.create') }`. */
export const audited = (...actions: [AuditAction, ...AuditAction[]]) => ({ config: { audit: { actions } as AuditDeclaration } });

/** Route options of an admin write route that changes nothing worth recording, and why (a test mail, a lookup). */
export const notAudited = (reason: string) => ({ config: { audit: { reason } as AuditDeclaration } });

export interface CoveredRoute {
  method: string;
  path: string;
  level: RoleLevel | undefined;
  audit: AuditDeclaration | undefined;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const isAdminWrite = (route: CoveredRoute): boolean => WRITE_METHODS.has(route.method) && (route.level === 'admin' || route.level === 'root');

/**
 * Records every /api route registered after it with its guard's level and its audit declaration;
 * audit-coverage.test.ts fails when an admin or root write route declares neither, so a new
 * route cannot forget the audit log. Call it before the routes; the list is `app.auditCoverage`.
 */
export function trackAuditCoverage(app: FastifyInstance): void {
  const routes: CoveredRoute[] = [];
  app.decorate('auditCoverage', routes);
  app.addHook('onRoute', (options) => {
    if (!options.url.startsWith('/api/')) return;
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    const level = guardLevelOf(options.preHandler);
    for (const method of methods) routes.push({ method, path: options.url, level, audit: options.config?.audit });
  });
}

/** The signed-in caller of a guarded route, as an audit row names it, and the address it called from. */
export function auditCaller(request: FastifyRequest): { actor: AuditActor; ip: string } {
  const user = currentUser(request);
  return { actor: { id: Number(user.id), username: user.username, role: Number(user.role) }, ip: request.ip };
}

/**
 * Records what the signed-in caller did to their own account (a second factor, a passkey) when
 * the caller is an administrator: an admin's security is an admin action; a user's is not.
 */
export function auditOwnAccount(context: Pick<AppContext, 'audit'>, request: FastifyRequest, entry: Omit<AuditRecord, 'actor' | 'ip' | 'target'>): void {
  const user = currentUser(request);
  if (!isAdmin(Number(user.role))) return;
  context.audit.record({ ...auditCaller(request), target: { type: 'user', id: Number(user.id) }, ...entry, summary: `${user.username} ${entry.summary}` });
}

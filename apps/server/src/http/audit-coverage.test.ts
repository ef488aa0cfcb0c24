import { AUDIT_ACTIONS } from '@modelgate/contract';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authGuard } from '../middleware/auth.js';
import type { UserRepository } from '../domain/users/user-repository.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import { routesOf } from '../test-support/route-walk.js';
import { audited, isAdminWrite, notAudited, trackAuditCoverage, type CoveredRoute } from './audit-coverage.js';

/*
 * Every write route under an admin or root guard declares what it records in the audit log
 * (`audited(...)`) or why it records nothing (`notAudited(...)`): a route added tomorrow without
 * either fails here, so it cannot forget the audit log.
 */

let test: TestApp;
let covered: CoveredRoute[];
beforeAll(async () => {
  test = await startTestApp();
  covered = test.app.auditCoverage;
});
afterAll(async () => test?.close());

const key = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

describe('audit coverage', () => {
  it('knows every /api route Fastify holds, with its guard', () => {
    const registered = routesOf(test.app)
      .filter((route) => route.path.startsWith('/api/'))
      .map(key);
    const tracked = new Set(covered.map(key));
    expect(registered.filter((route) => !tracked.has(route))).toEqual([]);
    const levels = Object.fromEntries(covered.map((route) => [key(route), route.level]));
    expect(levels['POST /api/user/manage']).toBe('admin');
    expect(levels['PUT /api/option/']).toBe('root');
    expect(levels['PUT /api/user/self']).toBe('user');
    expect(levels['POST /api/user/login']).toBeUndefined();
  });

  it('every admin and root write route declares the actions it records, or why it records none', () => {
    const writes = covered.filter(isAdminWrite);
    expect(writes.length).toBeGreaterThan(25);
    const undeclared = writes.filter((route) => route.audit === undefined).map(key);
    expect(undeclared, 'add audited(...) or notAudited(reason) to these routes').toEqual([]);
    const reasons = writes.flatMap((route) => (route.audit && 'reason' in route.audit ? [route.audit.reason] : []));
    expect(reasons.every((reason) => reason.trim().length > 10)).toBe(true);
  });

  it('declares only known action codes, and routes that record show up for the actions the issue names', () => {
    const declared = covered.flatMap((route) => (route.audit && 'actions' in route.audit ? route.audit.actions : []));
    expect(declared.filter((action) => !(AUDIT_ACTIONS as readonly string[]).includes(action))).toEqual([]);
    for (const action of ['user.create', 'user.quota_change', 'channel.update', 'redemption.delete', 'option.update', 'log.delete'] as const) {
      expect(declared, action).toContain(action);
    }
  });

  it('catches an admin write route that declares nothing', async () => {
    const app = Fastify();
    trackAuditCoverage(app);
    const guard = authGuard({} as UserRepository, 'admin');
    app.post('/api/forgotten', { preHandler: guard }, async () => ({}));
    app.post('/api/declared', { preHandler: [guard], ...audited('user.create') }, async () => ({}));
    app.post('/api/explained', { preHandler: guard, ...notAudited('reads something; changes nothing') }, async () => ({}));
    app.post('/api/own', async () => ({}));
    await app.ready();
    const undeclared = app.auditCoverage.filter((route) => isAdminWrite(route) && route.audit === undefined).map(key);
    expect(undeclared).toEqual(['POST /api/forgotten']);
    await app.close();
  });
});

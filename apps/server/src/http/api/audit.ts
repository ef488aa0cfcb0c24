import { AUDIT_ACTIONS, type AuditEntry } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AuditQuery, type AuditFilter } from '../../domain/audit/audit-query.js';
import { pageOf, queryInteger, queryText, readPaging, type ListQuery } from '../../lib/paging.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { ok } from '../envelope.js';

const KNOWN_ACTIONS = new Set<string>(AUDIT_ACTIONS);

function readFilter(query: ListQuery, readerRole: number): AuditFilter {
  const action = queryText(query, 'action');
  return {
    // An unknown code matches nothing, as it would by equality; kept as given so the answer is an empty page.
    action: KNOWN_ACTIONS.has(action) || action === '' ? action : `unknown:${action.slice(0, 50)}`,
    actor: queryText(query, 'actor'),
    targetType: queryText(query, 'target_type'),
    targetId: queryText(query, 'target_id'),
    ip: queryText(query, 'ip'),
    startTimestamp: queryInteger(query, 'start_timestamp'),
    endTimestamp: queryInteger(query, 'end_timestamp'),
    readerRole,
  };
}

/**
 * The audit log (domain/audit/): administrators read the rows of actors below root, root reads
 * all. Read only: no route writes, edits or deletes a row; the retention option alone removes old ones.
 */
export function auditRoutes(app: FastifyInstance, context: AppContext): void {
  const admin = authGuard(context.users.repository, 'admin');
  const query = new AuditQuery(context.db);

  app.get('/api/audit/', { preHandler: admin }, async (request) => {
    // Rows this node queued show at once.
    await context.audit.flush();
    const params = (request.query ?? {}) as ListQuery;
    const paging = readPaging(params);
    const { items, total } = await query.page(readFilter(params, Number(currentUser(request).role)), paging);
    return ok(pageOf<AuditEntry>(items, total, paging));
  });
}

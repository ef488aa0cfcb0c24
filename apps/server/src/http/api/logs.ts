import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { LogQuery, toWireLog, type LogFilter } from '../../domain/logs/log-query.js';
import { LogRetention } from '../../domain/logs/log-retention.js';
import { AppError } from '../../errors/app-error.js';
import { pageOf, queryInteger, queryText, readPaging, type ListQuery } from '../../lib/paging.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { ok } from '../envelope.js';
import { auditCaller, audited } from '../audit-coverage.js';

type Query = ListQuery;

/** new-api answers a refused log request with HTTP 200 and success:false. */
const refused = (code: string, message: string) => new AppError(code, message, { status: 200 });

export function readFilter(query: unknown, ownerId?: number): LogFilter {
  const params = (query ?? {}) as Query;
  const own = ownerId !== undefined;
  return {
    userId: ownerId,
    type: queryInteger(params, 'type'),
    // A user's own rows are fixed by userId; these two would only narrow them, and new-api's
    // self routes do not read them.
    username: own ? '' : queryText(params, 'username'),
    channel: own ? 0 : queryInteger(params, 'channel'),
    tokenName: queryText(params, 'token_name'),
    modelName: queryText(params, 'model_name'),
    startTimestamp: queryInteger(params, 'start_timestamp'),
    endTimestamp: queryInteger(params, 'end_timestamp'),
    group: queryText(params, 'group'),
  };
}

/** The key of `?key=sk-...`, or of the Authorization header when the query has none. */
function lookupKey(request: FastifyRequest): string {
  const fromQuery = queryText((request.query ?? {}) as Query, 'key');
  const header = request.headers.authorization ?? '';
  const raw = fromQuery !== '' ? fromQuery : header.replace(/^Bearer\s+/i, '').trim();
  return raw.replace(/^sk-/, '').split('-')[0] ?? '';
}

/** Usage logs (spec 02 §2, §7): admins see every row, users only their own, without admin_info. */
export function logRoutes(app: FastifyInstance, context: AppContext): void {
  const repository = context.users.repository;
  const admin = { preHandler: authGuard(repository, 'admin') };
  const signedIn = { preHandler: authGuard(repository, 'user') };
  const logs = new LogQuery(context.db);
  const retention = new LogRetention(context.db);
  const ownId = (request: FastifyRequest) => Number(currentUser(request).id);

  const page = async (query: unknown, ownerId?: number) => {
    const paging = readPaging(query);
    const { items, total } = await logs.page(readFilter(query, ownerId), paging);
    return ok(
      pageOf(
        items.map((row) => toWireLog(row, ownerId === undefined)),
        total,
        paging,
      ),
    );
  };
  app.get('/api/log/', admin, async (request) => page(request.query));
  app.get('/api/log/self', signedIn, async (request) => page(request.query, ownId(request)));

  const search = async (query: unknown, ownerId?: number) => {
    const rows = await logs.search(queryText((query ?? {}) as Query, 'keyword'), ownerId);
    return ok(rows.map((row) => toWireLog(row, ownerId === undefined)));
  };
  app.get('/api/log/search', admin, async (request) => search(request.query));
  app.get('/api/log/self/search', signedIn, async (request) => search(request.query, ownId(request)));

  app.get('/api/log/stat', admin, async (request) => ok(await logs.stat(readFilter(request.query))));
  app.get('/api/log/self/stat', signedIn, async (request) => ok(await logs.stat(readFilter(request.query, ownId(request)))));

  // Usage logs only: the audit log is a table of its own that no route deletes from.
  app.delete('/api/log/', { ...admin, ...audited('log.delete') }, async (request) => {
    const target = queryInteger((request.query ?? {}) as Query, 'target_timestamp');
    if (target <= 0) throw refused('log:invalid_target_timestamp', 'target timestamp is required');
    const deleted = await retention.deleteBefore(target);
    context.audit.record({
      ...auditCaller(request),
      action: 'log.delete',
      target: { type: 'log', id: '' },
      summary: `删除 ${new Date(target * 1000).toISOString()} 之前的使用日志，共 ${deleted} 条`,
      params: { target_timestamp: target, deleted },
    });
    return ok(deleted);
  });

  // No session: whoever holds a key may read what it was used for, and nothing else.
  app.get('/api/log/token', async (request) => {
    const key = lookupKey(request);
    const rows = key === '' ? undefined : await logs.byTokenKey(key);
    if (!rows) throw refused('token:invalid', '无效的令牌');
    return ok(rows.map((row) => toWireLog(row, false)));
  });
}

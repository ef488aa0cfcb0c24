import type { QuotaDataRow } from '@modelgate/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { ok } from '../envelope.js';

/** new-api's limit on the span a user may ask for its own usage. */
const SELF_MAX_SPAN_SECONDS = 30 * 24 * 3600;

// new-api answers these with success:false (its dashboard shows the message), not an HTTP error.
const failure = (code: string, message: string) => new AppError(code, message, { status: 200 });

function timestampParam(request: FastifyRequest, name: 'start_timestamp' | 'end_timestamp'): number {
  const raw = (request.query as Record<string, unknown>)[name];
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!/^-?\d{1,12}$/.test(text)) throw failure('request:invalid_parameter', `${name} 格式错误`);
  return Number(text);
}

// Sums over all users carry id, user_id and username zeroed.
const toItem = (row: Record<string, unknown>): QuotaDataRow => ({
  id: Number(row.id ?? 0),
  user_id: Number(row.user_id ?? 0),
  username: String(row.username ?? ''),
  model_name: String(row.model_name),
  created_at: Number(row.created_at),
  token_used: Number(row.token_used),
  count: Number(row.count),
  quota: Number(row.quota),
});

/** The dashboard's usage data (quota_data, filled by domain/usage/quota-data-export.ts). */
export function dataRoutes(app: FastifyInstance, context: AppContext): void {
  const { db, users } = context;

  // Everyone's usage summed per model and hour, or one user's rows when `username` is given.
  app.get('/api/data/', { preHandler: authGuard(users.repository, 'admin') }, async (request) => {
    const start = timestampParam(request, 'start_timestamp');
    const end = timestampParam(request, 'end_timestamp');
    const rawUsername = (request.query as Record<string, unknown>).username;
    const username = typeof rawUsername === 'string' ? rawUsername.trim() : '';
    const inRange = db.kysely.selectFrom('quota_data').where('created_at', '>=', start).where('created_at', '<=', end);
    if (username !== '') {
      const rows = await inRange.selectAll().where('username', '=', username).orderBy('created_at').orderBy('model_name').execute();
      return ok(rows.map((row) => toItem(row)));
    }
    const rows = await inRange
      .select((eb) => [
        'model_name',
        'created_at',
        eb.fn.sum<number>('count').as('count'),
        eb.fn.sum<number>('quota').as('quota'),
        eb.fn.sum<number>('token_used').as('token_used'),
      ])
      .groupBy(['model_name', 'created_at'])
      .orderBy('created_at')
      .orderBy('model_name')
      .execute();
    return ok(rows.map((row) => toItem(row)));
  });

  app.get('/api/data/self', { preHandler: authGuard(users.repository, 'user') }, async (request) => {
    const start = timestampParam(request, 'start_timestamp');
    const end = timestampParam(request, 'end_timestamp');
    if (end - start > SELF_MAX_SPAN_SECONDS) throw failure('request:span_too_long', '时间跨度不能超过 1 个月');
    const rows = await db.kysely
      .selectFrom('quota_data')
      .selectAll()
      .where('user_id', '=', Number(currentUser(request).id))
      .where('created_at', '>=', start)
      .where('created_at', '<=', end)
      .orderBy('created_at')
      .orderBy('model_name')
      .execute();
    return ok(rows.map((row) => toItem(row)));
  });
}

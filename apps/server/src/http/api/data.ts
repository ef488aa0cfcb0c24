import type { QuotaDataRow } from '@modelgate/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { ok } from '../envelope.js';
import type { HourTotals, QuotaDataExport } from '../../domain/usage/quota-data-export.js';

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

/**
 * Adds this node's sums not yet exported (QuotaDataExport.unexported) to the stored rows: a row of
 * the same key grows, a new key is a new row. `keyOf` names a row by what it is summed over.
 */
function withUnexported(rows: QuotaDataRow[], pending: HourTotals[], keyOf: (row: QuotaDataRow) => string, summed: boolean): QuotaDataRow[] {
  if (pending.length === 0) return rows;
  const byKey = new Map(rows.map((row) => [keyOf(row), row]));
  for (const entry of pending) {
    const extra: QuotaDataRow = {
      id: 0,
      user_id: summed ? 0 : entry.userId,
      username: summed ? '' : entry.username,
      model_name: entry.modelName,
      created_at: entry.createdAt,
      token_used: entry.tokenUsed,
      count: entry.count,
      quota: entry.quota,
    };
    const row = byKey.get(keyOf(extra));
    if (row) {
      row.token_used += extra.token_used;
      row.count += extra.count;
      row.quota += extra.quota;
    } else {
      byKey.set(keyOf(extra), extra);
      rows.push(extra);
    }
  }
  return rows.sort((a, b) => a.created_at - b.created_at || (a.model_name < b.model_name ? -1 : a.model_name > b.model_name ? 1 : 0));
}

const perModelHour = (row: QuotaDataRow) => `${row.model_name}\u0000${row.created_at}`;
const perUserModelHour = (row: QuotaDataRow) => `${row.user_id}\u0000${row.model_name}\u0000${row.created_at}`;

/**
 * The dashboard's usage data: quota_data (filled by domain/usage/quota-data-export.ts) plus this
 * node's sums not yet exported, so a call shows within seconds rather than after the next export.
 * The stored rows are read first: sums written meanwhile leave memory only after their write commits.
 */
export function dataRoutes(app: FastifyInstance, context: AppContext, usage: QuotaDataExport): void {
  const { db, users } = context;
  const pendingIn = (start: number, end: number, keep: (entry: HourTotals) => boolean) =>
    usage.unexported().filter((entry) => entry.createdAt >= start && entry.createdAt <= end && keep(entry));

  // Everyone's usage summed per model and hour, or one user's rows when `username` is given.
  app.get('/api/data/', { preHandler: authGuard(users.repository, 'admin') }, async (request) => {
    const start = timestampParam(request, 'start_timestamp');
    const end = timestampParam(request, 'end_timestamp');
    const rawUsername = (request.query as Record<string, unknown>).username;
    const username = typeof rawUsername === 'string' ? rawUsername.trim() : '';
    if (username !== '') {
      const rows = await db.kysely
        .selectFrom('quota_data')
        .selectAll()
        .where('created_at', '>=', start)
        .where('created_at', '<=', end)
        .where('username', '=', username)
        .orderBy('created_at')
        .orderBy('model_name')
        .execute();
      const pending = pendingIn(start, end, (entry) => entry.username === username);
      return ok(
        withUnexported(
          rows.map((row) => toItem(row)),
          pending,
          perUserModelHour,
          false,
        ),
      );
    }
    // Every user's rows summed per model and hour, as the usage export keeps them (migration 019).
    const rows = await db.kysely
      .selectFrom('quota_data_models')
      .select(['model_name', 'created_at', 'count', 'quota', 'token_used'])
      .where('created_at', '>=', start)
      .where('created_at', '<=', end)
      .orderBy('created_at')
      .orderBy('model_name')
      .execute();
    return ok(
      withUnexported(
        rows.map((row) => toItem(row)),
        pendingIn(start, end, () => true),
        perModelHour,
        true,
      ),
    );
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
    const userId = Number(currentUser(request).id);
    const pending = pendingIn(start, end, (entry) => entry.userId === userId);
    return ok(
      withUnexported(
        rows.map((row) => toItem(row)),
        pending,
        perUserModelHour,
        false,
      ),
    );
  });
}

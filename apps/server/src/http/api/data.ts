import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import type { ChartScope, UsageChart } from '../../domain/usage/usage-chart.js';

const ANSWER_HEAD = Buffer.from('{"success":true,"message":"","data":');
const ANSWER_TAIL = Buffer.from('}');

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

/**
 * The dashboard's usage data: quota_data (filled by domain/usage/quota-data-export.ts) plus this
 * node's sums not yet exported, so a call shows within seconds rather than after the next export
 * (domain/usage/usage-chart.ts).
 */
export function dataRoutes(app: FastifyInstance, context: AppContext, chart: UsageChart): void {
  const { users } = context;
  // The rows' JSON comes from the chart in encoded chunks (built by the database where it can): sent as they are.
  const answer = (reply: FastifyReply, rows: readonly Buffer[]) =>
    reply.type('application/json; charset=utf-8').send(Buffer.concat([ANSWER_HEAD, ...rows, ANSWER_TAIL]));

  // Everyone's usage summed per model and hour, or one user's rows when `username` is given.
  app.get('/api/data/', { preHandler: authGuard(users.repository, 'admin') }, async (request, reply) => {
    const start = timestampParam(request, 'start_timestamp');
    const end = timestampParam(request, 'end_timestamp');
    const rawUsername = (request.query as Record<string, unknown>).username;
    const username = typeof rawUsername === 'string' ? rawUsername.trim() : '';
    const scope: ChartScope = username !== '' ? { kind: 'username', username } : { kind: 'all' };
    return answer(reply, await chart.json(scope, start, end));
  });

  app.get('/api/data/self', { preHandler: authGuard(users.repository, 'user') }, async (request, reply) => {
    const start = timestampParam(request, 'start_timestamp');
    const end = timestampParam(request, 'end_timestamp');
    if (end - start > SELF_MAX_SPAN_SECONDS) throw failure('request:span_too_long', '时间跨度不能超过 1 个月');
    return answer(reply, await chart.json({ kind: 'user', userId: Number(currentUser(request).id) }, start, end));
  });
}

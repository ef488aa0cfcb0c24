import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { LogExport, logCsvStream, type ExportLanguage } from '../../domain/logs/log-export.js';
import { queryText, type ListQuery } from '../../lib/paging.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { readFilter } from './logs.js';

/** `?lang=zh` or `?lang=en` first, else the first language of Accept-Language; English unless it is Chinese. */
export function exportLanguage(request: FastifyRequest): ExportLanguage {
  const asked = queryText((request.query ?? {}) as ListQuery, 'lang') || (request.headers['accept-language'] ?? '').split(',')[0]!.trim();
  return asked.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** `logs-YYYYMMDD-HHMMSS.csv`, the time in UTC. */
export const exportFileName = (now = new Date()) => `logs-${now.toISOString().slice(0, 19).replace(/-|:/g, '').replace('T', '-')}.csv`;

/**
 * The filtered logs as a CSV download (spec: issue 30): the list routes' filters, every row they
 * select. X-Total-Count (the list's count, taken first) lets the console show progress. A failure
 * before the answer starts is the usual {success:false}; after it the connection is cut, so the
 * download is incomplete rather than silently short.
 */
export function logExportRoutes(app: FastifyInstance, context: AppContext): void {
  const repository = context.users.repository;
  const exporter = new LogExport(context.db);

  const send = async (request: FastifyRequest, reply: FastifyReply, ownerId?: number) => {
    const filter = readFilter(request.query, ownerId);
    const total = await exporter.count(filter);
    const currency = context.options.bool('DisplayInCurrencyEnabled');
    const quotaPerUnit = context.options.number('QuotaPerUnit');
    const options = {
      admin: ownerId === undefined,
      language: exportLanguage(request),
      quotaPerUnit: currency && quotaPerUnit > 0 ? quotaPerUnit : undefined,
    };
    // The client gone (or the answer done): no further page is read.
    const left = new AbortController();
    reply.raw.once('close', () => left.abort());
    const body = logCsvStream(exporter, filter, options, left.signal);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${exportFileName()}"`)
      .header('cache-control', 'no-store')
      .header('x-total-count', String(total))
      .send(body);
  };

  app.get('/api/log/export', { preHandler: authGuard(repository, 'admin') }, (request, reply) => send(request, reply));
  app.get('/api/log/self/export', { preHandler: authGuard(repository, 'user') }, (request, reply) => send(request, reply, Number(currentUser(request).id)));
}

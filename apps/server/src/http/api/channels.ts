import type { FastifyInstance } from 'fastify';
import type { AbilityRepair, BalanceRefresh, CatalogueModel, ChannelKey, ChannelPage, ListedChannel } from '@modelgate/contract';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { fetchUpstreamModels, modelCatalogue } from '../../domain/channels/channel-models.js';
import { toWireChannel, type ChannelRow } from '../../domain/channels/channel-fields.js';
import { batchIdsSchema, batchTagSchema, ChannelService, tagSchema } from '../../domain/channels/channel-service.js';
import { badRequest } from '../../errors/app-error.js';
import { pageOf, readPaging } from '../../lib/paging.js';
import { channelKeys } from '../../domain/relay-cache/relay-channel.js';
import { authGuard } from '../../middleware/auth.js';
import type { ChannelHealth } from '../../relay/channel-health.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';

const flag = z
  .string()
  .optional()
  .transform((value) => value === 'true' || value === '1');

export const listQuery = z.object({
  keyword: z.string().optional(),
  group: z.string().optional(),
  model: z.string().optional(),
  status: z
    .string()
    .optional()
    .transform((value) => {
      const normalised = value?.toLowerCase();
      if (normalised === 'enabled' || normalised === '1') return 'enabled' as const;
      if (normalised === 'disabled' || normalised === '0') return 'disabled' as const;
      return undefined;
    }),
  type: z
    .string()
    .optional()
    .transform((value) => (value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined)),
  id_sort: flag,
  tag_mode: flag,
});

export const fetchModelsBody = z.object({
  base_url: z.string().optional().default(''),
  type: z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)], { error: '请选择渠道类型' }),
  key: z.string({ error: '请先填写渠道密钥' }),
});

function channelId(params: unknown): number {
  const raw = (params as { id?: string }).id ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw badRequest('无效的渠道 ID', 'channel:invalid_id');
  return Number(raw);
}

/** Channel management for administrators (spec 02 §7). Keys are written here, never read back. */
export function channelRoutes(app: FastifyInstance, context: AppContext, health: ChannelHealth): void {
  const adminOnly = authGuard(context.users.repository, 'admin');
  const upstreamTimeoutMs = context.config.channelTestTimeoutSeconds * 1000;
  const channels = new ChannelService(context.db, context.changes, upstreamTimeoutMs);
  const guarded = { preHandler: adminOnly };
  // This node's circuit breakers, beside the stored fields; the relay runtime is registered after
  // these routes, so it is looked up when a request comes.
  const withBreaker = (row: ChannelRow): ListedChannel => ({
    ...toWireChannel(row),
    ...health.breakers.view(Number(row.id), channelKeys(row.key, Number(row.type))),
  });

  const list = async (query: unknown) => {
    const params = parseInput(listQuery, query);
    const paging = readPaging(query, ['page_size', 'size']);
    const result = await channels.list({
      filter: { keyword: params.keyword, group: params.group, model: params.model, status: params.status, type: params.type },
      idSort: params.id_sort,
      tagMode: params.tag_mode,
      paging,
    });
    return ok<ChannelPage>({ ...pageOf(result.items.map(withBreaker), result.total, paging), type_counts: result.typeCounts });
  };
  app.get('/api/channel/', guarded, async (request) => list(request.query));
  app.get('/api/channel/search', guarded, async (request) => list(request.query));

  app.get('/api/channel/models', guarded, async () => {
    const priced = [
      ...Object.keys(context.options.json<Record<string, number>>('ModelRatio')),
      ...Object.keys(context.options.json<Record<string, number>>('ModelPrice')),
    ];
    return ok<CatalogueModel[]>(modelCatalogue(priced, await channels.repository.modelLists()));
  });

  // A channel's full key: the super administrator only, within a fresh verification (new-api's route).
  app.post('/api/channel/:id/key', { preHandler: authGuard(context.users.repository, 'root') }, async (request) => {
    context.freshVerification.require(request);
    const channel = await channels.get(channelId(request.params));
    return ok<ChannelKey>({ key: channel.key }, '获取成功');
  });

  app.get('/api/channel/:id', guarded, async (request) => ok(withBreaker(await channels.get(channelId(request.params)))));

  app.post('/api/channel/', guarded, async (request) => {
    const { mode, channels: created } = await channels.create(request.body);
    const wire = created.map(toWireChannel);
    return ok(mode === 'batch' ? wire : wire[0], `成功添加 ${wire.length} 个渠道`);
  });

  app.post('/api/channel/copy/:id', guarded, async (request) => {
    const { suffix } = request.query as { suffix?: string };
    const copy = await channels.copy(channelId(request.params), suffix ?? '_复制');
    return ok(toWireChannel(copy));
  });

  app.put('/api/channel/', guarded, async (request) => ok(toWireChannel(await channels.update(request.body)), '更新成功'));

  const remove = async (params: unknown) => {
    await channels.remove(channelId(params));
    return ok(undefined, '删除成功');
  };
  app.delete('/api/channel/:id', guarded, async (request) => remove(request.params));
  app.delete('/api/channel/:id/', guarded, async (request) => remove(request.params));

  app.delete('/api/channel/disabled', guarded, async () => ok(await channels.removeDisabled()));

  app.post('/api/channel/batch', guarded, async (request) => {
    const { ids } = parseInput(batchIdsSchema, request.body);
    return ok(await channels.removeMany(ids));
  });

  app.post('/api/channel/batch/tag', guarded, async (request) => {
    const { ids, tag } = parseInput(batchTagSchema, request.body);
    return ok(await channels.setTag(ids, tag));
  });

  app.post('/api/channel/fix', guarded, async () => ok<AbilityRepair>(await channels.rebuildAbilities()));

  // new-api's multi-key management: the keys of a channel with their states, and what an admin does to them.
  app.post('/api/channel/multi_key/manage', guarded, async (request) => {
    const { message, data } = await channels.manageKeys(request.body, (channelId, key) => health.keyUseOf(channelId, key));
    return ok(data, message);
  });

  app.put('/api/channel/tag', guarded, async (request) => ok(await channels.editTag(request.body), '更新成功'));

  app.post('/api/channel/tag/enabled', guarded, async (request) => {
    const { tag } = parseInput(tagSchema, request.body);
    return ok(await channels.setTagStatus(tag, true));
  });
  app.post('/api/channel/tag/disabled', guarded, async (request) => {
    const { tag } = parseInput(tagSchema, request.body);
    return ok(await channels.setTagStatus(tag, false));
  });

  // new-api's console reads `balance` beside the envelope; data carries it too.
  const refreshBalance = async (params: unknown) => {
    const balance = await channels.refreshBalance(channelId(params));
    return { ...ok(balance), balance };
  };
  app.get('/api/channel/update_balance/:id', guarded, async (request) => refreshBalance(request.params));
  app.get('/api/channel/update_balance/:id/', guarded, async (request) => refreshBalance(request.params));
  app.get('/api/channel/update_balance', guarded, async () => ok<BalanceRefresh>(await channels.refreshAllBalances()));

  app.get('/api/channel/fetch_models/:id', guarded, async (request) => {
    const channel = await channels.get(channelId(request.params));
    return ok(await fetchUpstreamModels(channel, { timeoutMs: upstreamTimeoutMs }));
  });
  app.post('/api/channel/fetch_models', guarded, async (request) => {
    const body = parseInput(fetchModelsBody, request.body);
    return ok(await fetchUpstreamModels(body, { timeoutMs: upstreamTimeoutMs }));
  });
}

import type { FastifyInstance } from 'fastify';
import type { AbilityRepair, BalanceRefresh, CatalogueModel, ChannelKey, ChannelPage, ListedChannel } from '@modelgate/contract';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { fetchUpstreamModels, modelCatalogue } from '../../domain/channels/channel-models.js';
import { toWireChannel, type ChannelRow } from '../../domain/channels/channel-fields.js';
import { batchIdsSchema, batchTagSchema, ChannelService, tagEditSchema, tagSchema } from '../../domain/channels/channel-service.js';
import { badRequest } from '../../errors/app-error.js';
import { pageOf, readPaging } from '../../lib/paging.js';
import { channelKeys } from '../../domain/relay-cache/relay-channel.js';
import { authGuard } from '../../middleware/auth.js';
import type { ChannelHealth } from '../../relay/channel-health.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import { auditCaller, audited, notAudited } from '../audit-coverage.js';
import type { FastifyRequest } from 'fastify';
import type { AuditAction } from '@modelgate/contract';

const flag = z
  .string()
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** Go's strconv.ParseBool, which new-api reads its query flags with; undefined for anything else. */
function parseBoolFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  return undefined;
}

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

/** A channel as its audit rows compare it: the stored fields an administrator writes (the key masked by its name). */
const auditedChannel = (row: ChannelRow): Record<string, unknown> => {
  const { used_quota: _used, balance: _balance, balance_updated_time: _balanceTime, test_time: _testTime, response_time: _responseTime, ...fields } = row;
  return { ...fields, id: Number(row.id) };
};

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
  const audit = (
    request: FastifyRequest,
    action: AuditAction,
    summary: string,
    detail: { id?: number; before?: ChannelRow; after?: ChannelRow; params?: Record<string, unknown> } = {},
  ) =>
    context.audit.record({
      ...auditCaller(request),
      action,
      target: { type: 'channel', id: detail.id ?? '' },
      summary,
      before: detail.before && auditedChannel(detail.before),
      after: detail.after && auditedChannel(detail.after),
      params: detail.params,
    });
  const existing = (id: unknown) =>
    typeof id === 'number' || (typeof id === 'string' && /^\d{1,15}$/.test(id)) ? channels.get(Number(id)).catch(() => undefined) : Promise.resolve(undefined);
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
  app.post('/api/channel/:id/key', { preHandler: authGuard(context.users.repository, 'root'), ...audited('channel.key_reveal') }, async (request) => {
    context.freshVerification.require(request);
    const channel = await channels.get(channelId(request.params));
    const id = Number(channel.id);
    audit(request, 'channel.key_reveal', `查看渠道 ${channel.name}（ID ${id}）的密钥`, {
      id,
      params: { name: channel.name, verified_with: request.sessionVerifiedMethod ?? '' },
    });
    return ok<ChannelKey>({ key: channel.key }, '获取成功');
  });

  app.get('/api/channel/:id', guarded, async (request) => ok(withBreaker(await channels.get(channelId(request.params)))));

  app.post('/api/channel/', { ...guarded, ...audited('channel.create') }, async (request) => {
    const { mode, channels: created } = await channels.create(request.body);
    for (const row of created) audit(request, 'channel.create', `创建渠道 ${row.name}（ID ${Number(row.id)}）`, { id: Number(row.id), after: row });
    const wire = created.map(toWireChannel);
    return ok(mode === 'batch' ? wire : wire[0], `成功添加 ${wire.length} 个渠道`);
  });

  app.post('/api/channel/copy/:id', { ...guarded, ...audited('channel.copy') }, async (request) => {
    const { suffix, reset_balance: resetBalance } = request.query as { suffix?: string; reset_balance?: string };
    const source = channelId(request.params);
    // As new-api: a reset_balance that is not a boolean keeps the default (reset).
    const copy = await channels.copy(source, suffix ?? '_复制', parseBoolFlag(resetBalance) ?? true);
    audit(request, 'channel.copy', `复制渠道 ID ${source} 为 ${copy.name}（ID ${Number(copy.id)}）`, {
      id: Number(copy.id),
      after: copy,
      params: { source_id: source },
    });
    return ok(toWireChannel(copy));
  });

  app.put('/api/channel/', { ...guarded, ...audited('channel.update') }, async (request) => {
    const before = await existing((request.body as { id?: unknown } | undefined)?.id);
    const after = await channels.update(request.body);
    audit(request, 'channel.update', `修改渠道 ${after.name}（ID ${Number(after.id)}）`, { id: Number(after.id), before, after });
    return ok(toWireChannel(after), '更新成功');
  });

  const remove = async (request: FastifyRequest) => {
    const id = channelId(request.params);
    const before = await existing(id);
    await channels.remove(id);
    audit(request, 'channel.delete', `删除渠道 ${before?.name ?? ''}（ID ${id}）`, { id, before });
    return ok(undefined, '删除成功');
  };
  app.delete('/api/channel/:id', { ...guarded, ...audited('channel.delete') }, async (request) => remove(request));

  app.delete('/api/channel/disabled', { ...guarded, ...audited('channel.delete_disabled') }, async (request) => {
    const count = await channels.removeDisabled();
    audit(request, 'channel.delete_disabled', `删除所有已禁用渠道，共 ${count} 个`, { params: { count } });
    return ok(count);
  });

  app.post('/api/channel/batch', { ...guarded, ...audited('channel.batch_delete') }, async (request) => {
    const { ids } = parseInput(batchIdsSchema, request.body);
    const count = await channels.removeMany(ids);
    audit(request, 'channel.batch_delete', `批量删除渠道 ${ids.join(', ')}，共 ${count} 个`, { params: { ids, count } });
    return ok(count);
  });

  app.post('/api/channel/batch/tag', { ...guarded, ...audited('channel.batch_tag') }, async (request) => {
    const { ids, tag } = parseInput(batchTagSchema, request.body);
    const count = await channels.setTag(ids, tag);
    audit(request, 'channel.batch_tag', `为渠道 ${ids.join(', ')} 设置标签「${tag ?? ''}」`, { params: { ids, tag, count } });
    return ok(count);
  });

  app.post('/api/channel/fix', { ...guarded, ...audited('channel.abilities_fix') }, async (request) => {
    const repair = await channels.rebuildAbilities();
    audit(request, 'channel.abilities_fix', `重建渠道能力表：成功 ${repair.success}，失败 ${repair.fails}`, { params: repair });
    return ok<AbilityRepair>(repair);
  });

  // new-api's multi-key management: the keys of a channel with their states, and what an admin does to them.
  app.post('/api/channel/multi_key/manage', { ...guarded, ...audited('channel.keys_manage') }, async (request) => {
    const { message, data } = await channels.manageKeys(request.body, (channelId, key) => health.keyUseOf(channelId, key));
    const body = (request.body ?? {}) as { channel_id?: unknown; action?: unknown; key_index?: unknown };
    // Reading the keys' states changes nothing.
    if (body.action !== 'get_key_status') {
      const id = Number(body.channel_id) || undefined;
      const params = { action: String(body.action ?? ''), key_index: body.key_index };
      audit(request, 'channel.keys_manage', `管理渠道 ID ${id ?? ''} 的密钥：${params.action}`, { id, params });
    }
    return ok(data, message);
  });

  app.put('/api/channel/tag', { ...guarded, ...audited('channel.tag_edit') }, async (request) => {
    const count = await channels.editTag(request.body);
    const edit = parseInput(tagEditSchema, request.body);
    audit(request, 'channel.tag_edit', `批量编辑标签「${edit.tag}」的渠道，共 ${count} 个`, { params: { ...edit, count } });
    return ok(count, '更新成功');
  });

  // The tag editor's starting model list (new-api's GET /api/channel/tag/models?tag=).
  app.get('/api/channel/tag/models', guarded, async (request) => {
    const { tag } = parseInput(tagSchema, request.query);
    return ok<string>(await channels.tagModels(tag));
  });

  const setTagStatus = async (request: FastifyRequest, enabled: boolean) => {
    const { tag } = parseInput(tagSchema, request.body);
    const count = await channels.setTagStatus(tag, enabled);
    audit(request, 'channel.tag_status', `${enabled ? '启用' : '禁用'}标签「${tag}」的渠道，共 ${count} 个`, { params: { tag, enabled, count } });
    return ok(count);
  };
  app.post('/api/channel/tag/enabled', { ...guarded, ...audited('channel.tag_status') }, async (request) => setTagStatus(request, true));
  app.post('/api/channel/tag/disabled', { ...guarded, ...audited('channel.tag_status') }, async (request) => setTagStatus(request, false));

  // new-api's console reads `balance` beside the envelope; data carries it too.
  const refreshBalance = async (params: unknown) => {
    const balance = await channels.refreshBalance(channelId(params));
    return { ...ok(balance), balance };
  };
  app.get('/api/channel/update_balance/:id', guarded, async (request) => refreshBalance(request.params));
  app.get('/api/channel/update_balance', guarded, async () => ok<BalanceRefresh>(await channels.refreshAllBalances()));

  app.get('/api/channel/fetch_models/:id', guarded, async (request) => {
    const channel = await channels.get(channelId(request.params));
    return ok(await fetchUpstreamModels(channel, { timeoutMs: upstreamTimeoutMs }));
  });
  app.post('/api/channel/fetch_models', { ...guarded, ...notAudited('asks an upstream for its models; changes nothing') }, async (request) => {
    const body = parseInput(fetchModelsBody, request.body);
    return ok(await fetchUpstreamModels(body, { timeoutMs: upstreamTimeoutMs }));
  });
}

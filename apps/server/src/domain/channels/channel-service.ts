import { ChannelStatus } from '@modelgate/contract';
import type { EventEmitter } from 'node:events';
import { z } from 'zod';
import type { ChangeEvents } from '../../lib/cluster-changes.js';
import type { Db } from '../../db/index.js';
import { badRequest, notFound } from '../../errors/app-error.js';
import { parseInput } from '../../lib/parse-input.js';
import { fetchBalance, supportsBalance } from './channel-balance.js';
import {
  channelInputSchema,
  checkModelMapping,
  checkPriority,
  checkRequired,
  pickWritable,
  splitKeys,
  splitList,
  toChannelColumns,
  type ChannelRow,
  type ChannelWritable,
} from './channel-fields.js';
import { ChannelRepository, type ChannelList, type ChannelListOptions, type TagEdit } from './channel-repository.js';
import { checkRelayable } from './channel-relayable.js';
import { channelKeys } from '../relay-cache/relay-channel.js';
import { keyPreview, keyStatus, parseChannelInfo, serializeChannelInfo, withKeyStatus, withoutKeys } from './multi-key.js';
import { changeKeyStates, type KeyChange } from './multi-key-store.js';

const createModes = ['single', 'batch', 'multi_to_single'] as const;
export const wrappedCreateSchema = z.object({
  mode: z.string().optional().default('single'),
  channel: channelInputSchema,
  batch_add_set_key_prefix_2_name: z.boolean().optional().default(false),
  multi_key_mode: z.enum(['random', 'polling'], { error: 'multi_key_mode 只能是 random 或 polling' }).optional(),
});

/** new-api's POST /api/channel/multi_key/manage body. */
export const multiKeyManageSchema = z.object({
  channel_id: z.number({ error: 'channel_id 必须是渠道 ID' }).int().positive(),
  action: z.string({ error: 'action 不能为空' }).trim().min(1, 'action 不能为空'),
  key_index: z.number({ error: 'key_index 必须是整数' }).int().nonnegative().optional(),
  page: z.number().int().positive().optional(),
  page_size: z.number().int().positive().max(100).optional(),
  status: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
});

/** One key of a multi-key channel as the console lists it (never the key itself). */
export interface KeyStatusEntry {
  index: number;
  status: number;
  disabled_time?: number;
  reason?: string;
  key_preview: string;
  /** This node's calls with the key since it started: served and failed, and when it last served. */
  served_count?: number;
  failed_count?: number;
  last_served_time?: number;
}

/** Reads this node's counts of a key's calls (the relay's channel health keeps them). */
export type KeyUseSource = (channelId: number, key: string) => { served: number; failed: number; lastServed: number } | undefined;

export interface KeyStatusPage {
  keys: KeyStatusEntry[];
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
  enabled_count: number;
  manual_disabled_count: number;
  auto_disabled_count: number;
  multi_key_mode: 'random' | 'polling';
}

const idList = z
  .array(z.union([z.number().int().positive(), z.string().regex(/^\d+$/).transform(Number)]), { error: 'ids 必须是渠道 ID 数组' })
  .min(1, '请先选择渠道');

export const batchIdsSchema = z.object({ ids: idList });
export const batchTagSchema = z.object({
  ids: idList,
  tag: z.string({ error: '标签不能为空' }).trim().min(1, '标签不能为空').max(255, '标签不能超过 255 个字符'),
});
export const tagSchema = z.object({ tag: z.string({ error: '标签不能为空' }).min(1, '标签不能为空') });

const optionalText = z.union([z.string(), z.null()]).optional();
const optionalList = z.union([z.string(), z.array(z.string()), z.null()]).optional();
export const tagEditSchema = z.object({
  tag: z.string({ error: '标签不能为空' }).min(1, '标签不能为空'),
  new_tag: optionalText,
  model_mapping: optionalText,
  models: optionalList,
  groups: optionalList,
  group: optionalList,
  priority: z.union([z.number().int('优先级必须是整数'), z.null()], { error: '优先级必须是整数' }).optional(),
  weight: z.union([z.number().int('权重必须是非负整数').min(0, '权重必须是非负整数'), z.null()], { error: '权重必须是非负整数' }).optional(),
});

const BALANCE_CONCURRENCY = 4;

/** Channel management. Every write tells the caches through `changes.emit('channels')`. */
export class ChannelService {
  readonly repository: ChannelRepository;

  constructor(
    private readonly db: Db,
    private readonly changes: EventEmitter<ChangeEvents>,
    /** How long a provider's balance API may take (CHANNEL_TEST_TIMEOUT). */
    private readonly upstreamTimeoutMs: number,
  ) {
    this.repository = new ChannelRepository(db);
  }

  private changed(): void {
    this.changes.emit('channels');
  }

  list(options: ChannelListOptions): Promise<ChannelList> {
    return this.repository.list(options);
  }

  async get(id: number): Promise<ChannelRow> {
    const row = await this.repository.findById(id);
    if (!row) throw notFound('渠道不存在，请刷新后重试', 'channel:not_found');
    return row;
  }

  /**
   * Creates channels from the channel body itself or new-api's {mode, channel}: `single` one
   * channel, `batch` one channel per key line, `multi_to_single` one channel holding every key.
   */
  async create(body: unknown): Promise<{ mode: string; channels: ChannelRow[] }> {
    const wrapped = body !== null && typeof body === 'object' && 'channel' in body && typeof body.channel === 'object';
    const request = wrapped
      ? parseInput(wrappedCreateSchema, body)
      : { mode: 'single', channel: parseInput(channelInputSchema, body), batch_add_set_key_prefix_2_name: false };
    if (!(createModes as readonly string[]).includes(request.mode)) throw badRequest('不支持的添加模式', 'channel:unsupported_mode');

    const columns = toChannelColumns(request.channel);
    const base: ChannelWritable = {
      type: 0,
      name: '',
      status: ChannelStatus.Enabled,
      group: '',
      models: '',
      model_mapping: '',
      key: '',
      base_url: '',
      other: '',
      test_model: '',
      auto_ban: 1,
      status_code_mapping: '',
      tag: '',
      priority: 0,
      weight: 0,
      setting: '',
      openai_organization: '',
      param_override: '',
      header_override: '',
      remark: '',
      channel_info: '',
      ...columns,
    };
    checkRequired(base, true);
    checkRelayable(base.type, base.other);

    const keys = splitKeys(request.channel.key ?? '');
    let rows: ChannelWritable[];
    if (request.mode === 'batch') {
      const distinct = [...new Set(keys)];
      rows = distinct.map((key) => ({
        ...base,
        key,
        name: request.batch_add_set_key_prefix_2_name && distinct.length > 1 ? `${base.name} ${key.slice(0, 8)}` : base.name,
      }));
    } else {
      // One channel holding every key (new-api's multi_to_single; a multi-line key in single mode too).
      const key = request.mode === 'multi_to_single' ? keys.join('\n') : base.key;
      const count = channelKeys(key, base.type).length;
      const mode = ('multi_key_mode' in request ? request.multi_key_mode : undefined) ?? request.channel.multi_key_mode ?? 'random';
      const info = count > 1 ? serializeChannelInfo({ ...parseChannelInfo('', count), multi_key_mode: mode }) : '';
      rows = [{ ...base, key, channel_info: info }];
    }
    const createdTime = Math.floor(Date.now() / 1000);
    const ids = await this.repository.insertMany(rows.map((row) => ({ ...row, created_time: createdTime })));
    this.changed();
    const channels = await Promise.all(ids.map((id) => this.get(id)));
    return { mode: request.mode, channels };
  }

  /**
   * A new channel with the same settings and key; test results start over, and so do the used
   * quota and balance unless `resetBalance` is false (new-api's copy keeps them then).
   */
  async copy(id: number, suffix: string, resetBalance = true): Promise<ChannelRow> {
    const source = await this.get(id);
    const usage = resetBalance ? {} : { balance: source.balance, balance_updated_time: source.balance_updated_time, used_quota: source.used_quota };
    const [newId] = await this.repository.insertMany([
      { ...pickWritable(source), ...usage, name: `${source.name}${suffix}`, created_time: Math.floor(Date.now() / 1000) },
    ]);
    this.changed();
    return this.get(newId!);
  }

  /** Updates the fields sent (the whole form, or just {id, status|priority|weight}). */
  async update(body: unknown): Promise<ChannelRow> {
    const input = parseInput(channelInputSchema, body);
    if (input.id === undefined) throw badRequest('渠道 ID 不能为空', 'channel:missing_id');
    const current = await this.get(input.id);
    const columns = toChannelColumns(input);
    checkRequired(columns, false);
    // A status, priority or weight change of a stored channel is not a save of its type.
    if (columns.type !== undefined || columns.other !== undefined) checkRelayable(columns.type ?? Number(current.type), columns.other ?? current.other);
    const type = columns.type ?? Number(current.type);
    const currentKeys = channelKeys(current.key, type);
    let info = parseChannelInfo(current.channel_info, currentKeys.length);
    if (columns.key !== undefined) {
      if (input.key_mode === 'append') {
        // The keys sent join the stored ones, enabled; a key already there is not added twice.
        const added = channelKeys(columns.key, type).filter((key) => !currentKeys.includes(key));
        const keys = [...currentKeys, ...added];
        columns.key = keys.join('\n');
        info = { ...info, multi_key_size: keys.length, is_multi_key: keys.length > 1 };
      } else {
        // Replaced: the new keys start enabled.
        const count = channelKeys(columns.key, type).length;
        info = { ...parseChannelInfo('', count), multi_key_mode: info.multi_key_mode };
      }
    }
    if (input.multi_key_mode !== undefined) info = { ...info, multi_key_mode: input.multi_key_mode };
    if (columns.key !== undefined || input.multi_key_mode !== undefined) columns.channel_info = serializeChannelInfo(info);
    const row = await this.repository.update(input.id, columns);
    if (!row) throw notFound('渠道不存在，请刷新后重试', 'channel:not_found');
    this.changed();
    return row;
  }

  /**
   * new-api's multi-key management: list a channel's keys with their states, enable, disable or
   * delete one, enable or disable all, delete the automatically disabled ones. Answers the list
   * (get_key_status) or the message of what was done.
   */
  async manageKeys(body: unknown, keyUse?: KeyUseSource): Promise<{ message: string; data?: KeyStatusPage | number }> {
    const request = parseInput(multiKeyManageSchema, body);
    const index = request.key_index;
    const needIndex = (keys: readonly string[]): string | undefined => {
      if (index === undefined) return '未指定要操作的密钥索引 (key_index is required)';
      if (index >= keys.length) return '密钥索引超出范围 (no key at that index)';
      return undefined;
    };
    const apply = async (change: (keys: string[], info: ReturnType<typeof parseChannelInfo>) => KeyChange) => {
      const result = await changeKeyStates(this.db, request.channel_id, ({ keys, info }) => change(keys, info));
      if (result.missing) throw notFound('渠道不存在，请刷新后重试', 'channel:not_found');
      if (result.refused !== undefined) throw badRequest(result.refused, 'channel:key_action_refused');
      this.changed();
      return result;
    };
    switch (request.action) {
      case 'get_key_status':
        return { message: '', data: await this.keyStatusPage(request.channel_id, request.page ?? 1, request.page_size ?? 10, request.status, keyUse) };
      case 'enable_key':
      case 'disable_key': {
        const enable = request.action === 'enable_key';
        await apply((keys, info) => {
          const problem = needIndex(keys);
          if (problem) return { refused: problem };
          return { keys, info: withKeyStatus(info, index!, enable ? ChannelStatus.Enabled : ChannelStatus.ManuallyDisabled, enable ? '' : '手动禁用') };
        });
        return { message: enable ? '密钥已启用' : '密钥已禁用' };
      }
      case 'enable_all_keys':
      case 'disable_all_keys': {
        const enable = request.action === 'enable_all_keys';
        let changed = 0;
        await apply((keys, info) => {
          let next = info;
          changed = 0;
          keys.forEach((_key, at) => {
            const status = keyStatus(next, at);
            if (enable ? status !== ChannelStatus.Enabled : status === ChannelStatus.Enabled) {
              next = withKeyStatus(next, at, enable ? ChannelStatus.Enabled : ChannelStatus.ManuallyDisabled, enable ? '' : '手动禁用');
              changed += 1;
            }
          });
          return changed === 0 ? { refused: enable ? '没有可启用的密钥' : '没有可禁用的密钥' } : { keys, info: next };
        });
        return { message: `${enable ? '已启用' : '已禁用'} ${changed} 个密钥` };
      }
      case 'delete_key':
        await apply((keys, info) => {
          const problem = needIndex(keys);
          if (problem) return { refused: problem };
          if (keys.length === 1) return { refused: '不能删除最后一个密钥' };
          return withoutKeys(keys, info, (at) => at === index);
        });
        return { message: '密钥已删除' };
      case 'delete_disabled_keys': {
        let deleted = 0;
        await apply((keys, info) => {
          deleted = keys.filter((_key, at) => keyStatus(info, at) === ChannelStatus.AutoDisabled).length;
          if (deleted === 0) return { refused: '没有需要删除的自动禁用密钥' };
          if (deleted === keys.length) return { refused: '不能删除最后一个密钥' };
          return withoutKeys(keys, info, (at) => keyStatus(info, at) === ChannelStatus.AutoDisabled);
        });
        return { message: `已删除 ${deleted} 个自动禁用的密钥`, data: deleted };
      }
      default:
        throw badRequest('不支持的操作', 'channel:unsupported_key_action');
    }
  }

  private async keyStatusPage(channelId: number, page: number, pageSize: number, status: number | undefined, keyUse?: KeyUseSource): Promise<KeyStatusPage> {
    const row = await this.get(channelId);
    const keys = channelKeys(row.key, Number(row.type));
    const info = parseChannelInfo(row.channel_info, keys.length);
    const all: KeyStatusEntry[] = keys.map((key, index) => {
      const state = keyStatus(info, index);
      const entry: KeyStatusEntry = { index, status: state, key_preview: keyPreview(key) };
      const use = keyUse?.(channelId, key);
      if (use) {
        entry.served_count = use.served;
        entry.failed_count = use.failed;
        entry.last_served_time = use.lastServed;
      }
      if (state !== ChannelStatus.Enabled) {
        entry.disabled_time = info.multi_key_disabled_time[String(index)] ?? 0;
        entry.reason = info.multi_key_disabled_reason[String(index)] ?? '';
      }
      return entry;
    });
    const count = (wanted: number) => all.filter((entry) => entry.status === wanted).length;
    const listed = status === undefined ? all : all.filter((entry) => entry.status === status);
    const totalPages = Math.max(1, Math.ceil(listed.length / pageSize));
    return {
      keys: listed.slice((page - 1) * pageSize, page * pageSize),
      total: listed.length,
      page,
      page_size: pageSize,
      total_pages: totalPages,
      enabled_count: count(ChannelStatus.Enabled),
      manual_disabled_count: count(ChannelStatus.ManuallyDisabled),
      auto_disabled_count: count(ChannelStatus.AutoDisabled),
      multi_key_mode: info.multi_key_mode,
    };
  }

  async remove(id: number): Promise<void> {
    const deleted = await this.repository.deleteMany([id]);
    if (deleted === 0) throw notFound('渠道不存在，请刷新后重试', 'channel:not_found');
    this.changed();
  }

  async removeMany(ids: number[]): Promise<number> {
    const deleted = await this.repository.deleteMany([...new Set(ids)]);
    this.changed();
    return deleted;
  }

  async removeDisabled(): Promise<number> {
    const deleted = await this.repository.deleteDisabled();
    this.changed();
    return deleted;
  }

  async setTag(ids: number[], tag: string): Promise<number> {
    const updated = await this.repository.setTag([...new Set(ids)], tag);
    this.changed();
    return updated;
  }

  async setTagStatus(tag: string, enabled: boolean): Promise<number> {
    const updated = await this.repository.setStatusByTag(tag, enabled ? ChannelStatus.Enabled : ChannelStatus.ManuallyDisabled);
    if (updated === 0) throw notFound(`没有渠道使用标签“${tag}”`, 'channel:tag_not_found');
    this.changed();
    return updated;
  }

  /**
   * GET /api/channel/tag/models: the longest model list among the tag's channels (the first of
   * equal ones), which new-api's tag editor starts from; '' when no channel of the tag has models.
   */
  async tagModels(tag: string): Promise<string> {
    let longest = '';
    let most = 0;
    for (const models of await this.repository.modelListsOfTag(tag)) {
      const count = models === '' ? 0 : models.split(',').length;
      if (count > most) {
        most = count;
        longest = models;
      }
    }
    return longest;
  }

  /** PUT /api/channel/tag: empty or absent fields are left as they are, as in new-api. */
  async editTag(body: unknown): Promise<number> {
    const input = parseInput(tagEditSchema, body);
    const edit: TagEdit = {};
    if (input.new_tag !== undefined && input.new_tag !== null && input.new_tag.trim() !== input.tag) edit.newTag = input.new_tag.trim();
    if (input.model_mapping) edit.modelMapping = checkModelMapping(input.model_mapping);
    const models = splitList(input.models);
    if (models.length > 0) edit.models = models.join(',');
    const groups = splitList(input.groups ?? input.group);
    if (groups.length > 0) edit.group = groups.join(',');
    if (input.priority !== undefined && input.priority !== null) edit.priority = checkPriority(input.priority);
    if (input.weight !== undefined && input.weight !== null) edit.weight = input.weight;
    if (Object.keys(edit).length === 0) throw badRequest('没有需要修改的内容', 'channel:no_changes');
    const updated = await this.repository.editByTag(input.tag, edit);
    if (updated === 0) throw notFound(`没有渠道使用标签“${input.tag}”`, 'channel:tag_not_found');
    this.changed();
    return updated;
  }

  async rebuildAbilities(): Promise<{ success: number; fails: number }> {
    const result = await this.repository.rebuildAbilities();
    this.changed();
    return result;
  }

  async refreshBalance(id: number): Promise<number> {
    const channel = await this.get(id);
    const balance = await fetchBalance(channel, { timeoutMs: this.upstreamTimeoutMs });
    await this.repository.updateBalance(id, balance);
    this.changed();
    return balance;
  }

  /** Refreshes every enabled channel whose type reports a balance, a few at a time. */
  async refreshAllBalances(): Promise<{ updated: number; failed: number; unsupported: number }> {
    const channels = await this.repository.enabledChannels();
    const supported = channels.filter((channel) => supportsBalance(Number(channel.type)));
    let updated = 0;
    let failed = 0;
    let next = 0;
    const worker = async () => {
      while (next < supported.length) {
        const channel = supported[next++]!;
        try {
          await this.repository.updateBalance(Number(channel.id), await fetchBalance(channel, { timeoutMs: this.upstreamTimeoutMs }));
          updated += 1;
        } catch {
          failed += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: BALANCE_CONCURRENCY }, worker));
    if (updated > 0) this.changed();
    return { updated, failed, unsupported: channels.length - supported.length };
  }
}

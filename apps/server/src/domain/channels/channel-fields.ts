import { isKnownChannelType } from '@modelgate/contract';
import type { WireChannel } from '@modelgate/contract';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { ChannelsTable } from '../../db/schema.js';
import { badRequest } from '../../errors/app-error.js';
import { channelSecrets, maskSecrets } from '../../lib/mask-secrets.js';
import { channelKeys, HEADER_NAME, UNSETTABLE_HEADERS } from '../relay-cache/relay-channel.js';
import { parseChannelInfo } from './multi-key.js';

export type ChannelRow = Selectable<ChannelsTable>;

/** The columns an administrator may write; the rest (usage, balance, test results) the server keeps. */
const WRITABLE_COLUMNS = [
  'type',
  'name',
  'status',
  'group',
  'models',
  'model_mapping',
  'key',
  'base_url',
  'other',
  'test_model',
  'auto_ban',
  'status_code_mapping',
  'tag',
  'priority',
  'weight',
  'setting',
  'openai_organization',
  'param_override',
  'header_override',
  'remark',
  'channel_info',
] as const satisfies readonly (keyof ChannelRow)[];
export type ChannelWritable = Pick<ChannelRow, (typeof WRITABLE_COLUMNS)[number]>;
/** What a channel has spent and holds upstream; a copy may carry it over (new-api's reset_balance=false). */
export type ChannelUsage = Pick<ChannelRow, 'balance' | 'balance_updated_time' | 'used_quota'>;

export function pickWritable(row: ChannelRow): ChannelWritable {
  return Object.fromEntries(WRITABLE_COLUMNS.map((column) => [column, row[column]])) as ChannelWritable;
}

export const PRIORITY_MIN = -999;
const NAME_MAX = 255;
const GROUP_MAX = 64;
const MODEL_MAX = 255;
const TAG_MAX = 255;

/** A comma (or newline) separated list, trimmed, without empties or repeats, order kept. */
export function splitList(value: string | readonly string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  const parts = typeof value === 'string' ? value.split(/[,\n]/) : value.flatMap((item) => item.split(','));
  const seen = new Set<string>();
  for (const part of parts) {
    const trimmed = part.trim();
    if (trimmed !== '') seen.add(trimmed);
  }
  return [...seen];
}

const integer = (label: string) =>
  z
    .union(
      [
        z.number(),
        z
          .string()
          .trim()
          .regex(/^-?\d+$/, `${label}必须是整数`),
      ],
      { error: `${label}必须是整数` },
    )
    .transform(Number)
    .pipe(z.number().int(`${label}必须是整数`).safe(`${label}超出范围`));

/** An optional integer; null (sent by forms for an untouched field) counts as absent. */
const optionalInteger = (label: string) =>
  integer(label)
    .nullable()
    .optional()
    .transform((value) => value ?? undefined);

/** null and absent both mean "not given": new-api's console sends null for untouched optional text. */
const text = z
  .union([z.string(), z.null()], { error: '必须是字符串' })
  .optional()
  .transform((value) => (value === null ? undefined : value));

const list = z
  .union([z.string(), z.array(z.string()), z.null()], { error: '必须是逗号分隔的字符串或字符串数组' })
  .optional()
  .transform((value) => (value === null || value === undefined ? undefined : splitList(value)));

/**
 * A channel as the console sends it, for create and update alike. Unknown keys (used_quota,
 * balance, response_time ... that the form echoes back) are dropped: they are not writable.
 */
export const channelInputSchema = z.object({
  id: optionalInteger('渠道 ID'),
  type: optionalInteger('渠道类型'),
  name: text,
  status: optionalInteger('状态'),
  group: list,
  groups: list,
  models: list,
  model_mapping: text,
  key: text,
  base_url: text,
  other: text,
  test_model: text,
  auto_ban: z
    .union([z.boolean(), integer('auto_ban'), z.null()], { error: 'auto_ban 必须是 0、1 或布尔值' })
    .optional()
    .transform((value) => (value === null || value === undefined ? undefined : Number(value) ? 1 : 0)),
  status_code_mapping: text,
  tag: text,
  priority: optionalInteger('优先级'),
  weight: optionalInteger('权重'),
  setting: text,
  openai_organization: text,
  param_override: text,
  header_override: text,
  remark: text,
  // A multi-key channel: how a request picks its key; on update, whether the keys sent join the stored ones or replace them.
  multi_key_mode: z.enum(['random', 'polling'], { error: 'multi_key_mode 只能是 random 或 polling' }).optional(),
  key_mode: z.enum(['append', 'replace'], { error: 'key_mode 只能是 append 或 replace' }).optional(),
});
export type ChannelInput = z.output<typeof channelInputSchema>;

function parseJsonObject(raw: string, message: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest(message, 'channel:invalid_json');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest(message, 'channel:invalid_json');
  return parsed as Record<string, unknown>;
}

/** model_mapping: a JSON object from requested model name to upstream model name. */
export function checkModelMapping(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed === '') return '';
  const message = '模型重定向必须是合法的 JSON 对象，且每个值都是模型名称字符串';
  const mapping = parseJsonObject(trimmed, message);
  if (Object.values(mapping).some((value) => typeof value !== 'string')) throw badRequest(message, 'channel:invalid_json');
  return trimmed;
}

/** status_code_mapping: {"429": "500"} rewrites an upstream status code before it is judged. */
export function checkStatusCodeMapping(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed === '') return '';
  const message = '状态码复写必须是合法的 JSON 对象，形如 {"400": "500"}';
  const mapping = parseJsonObject(trimmed, message);
  const isCode = (value: unknown) => (typeof value === 'string' || typeof value === 'number') && /^[1-5]\d\d$/.test(String(value));
  for (const [from, to] of Object.entries(mapping)) {
    if (!isCode(from) || !isCode(to)) throw badRequest(`${message}，"${from}" 映射无效`, 'channel:invalid_json');
  }
  return trimmed;
}

function checkOptionalObject(raw: string, label: string): string {
  const trimmed = raw.trim();
  if (trimmed === '') return '';
  parseJsonObject(trimmed, `${label}必须是合法的 JSON 对象`);
  return trimmed;
}

/** header_override: {"Header-Name": "value"}, `{api_key}` for the key, `{client}` for the client's own value. */
export function checkHeaderOverride(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed === '') return '';
  const message = '请求头覆盖必须是合法的 JSON 对象，形如 {"X-Header": "值"} (header override must be a JSON object of header names to string values)';
  const override = parseJsonObject(trimmed, message);
  for (const [name, value] of Object.entries(override)) {
    if (!HEADER_NAME.test(name)) throw badRequest(`请求头名称不合法：${name} (invalid header name)`, 'channel:invalid_json');
    if (UNSETTABLE_HEADERS.has(name.toLowerCase())) throw badRequest(`请求头 ${name} 不能覆盖 (header ${name} cannot be overridden)`, 'channel:invalid_json');
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      throw badRequest(`请求头 ${name} 的值必须是不含换行的字符串 (the value of ${name} must be a string without line breaks)`, 'channel:invalid_json');
    }
  }
  return trimmed;
}

function checkBaseUrl(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  if (!/^https?:\/\/[^\s/]+/i.test(trimmed)) throw badRequest('Base URL 必须以 http:// 或 https:// 开头', 'channel:invalid_base_url');
  return trimmed;
}

/** Multi-line keys: one per line, trimmed, empties dropped. */
export const splitKeys = (raw: string): string[] =>
  raw
    .split('\n')
    .map((key) => key.trim())
    .filter((key) => key !== '');

/**
 * Turns the given fields into column values, checking each one. Only fields present in the
 * input appear in the result, so an update writes what was sent and keeps the rest.
 */
export function toChannelColumns(input: ChannelInput): Partial<ChannelWritable> {
  const columns: Partial<ChannelWritable> = {};
  if (input.type !== undefined) {
    if (!isKnownChannelType(input.type)) throw badRequest(`未知的渠道类型：${input.type}`, 'channel:unknown_type');
    columns.type = input.type;
  }
  if (input.name !== undefined) {
    const name = input.name.trim();
    if ([...name].length > NAME_MAX) throw badRequest(`渠道名称不能超过 ${NAME_MAX} 个字符`, 'channel:name_too_long');
    columns.name = name;
  }
  if (input.status !== undefined) {
    if (![1, 2, 3].includes(input.status)) throw badRequest('渠道状态只能是 1（启用）、2（手动禁用）或 3（自动禁用）', 'channel:invalid_status');
    columns.status = input.status;
  }
  // The form sends `groups` (array), the wire and older clients `group` (comma list).
  const groups = input.groups !== undefined && input.groups.length > 0 ? input.groups : input.group;
  if (groups !== undefined) {
    const tooLong = groups.find((group) => group.length > GROUP_MAX);
    if (tooLong) throw badRequest(`分组名称不能超过 ${GROUP_MAX} 个字符：${tooLong}`, 'channel:group_too_long');
    columns.group = groups.join(',');
  }
  if (input.models !== undefined) {
    const tooLong = input.models.find((model) => model.length > MODEL_MAX);
    if (tooLong) throw badRequest(`模型名称过长：${tooLong}`, 'channel:model_too_long');
    columns.models = input.models.join(',');
  }
  if (input.model_mapping !== undefined) columns.model_mapping = checkModelMapping(input.model_mapping);
  if (input.status_code_mapping !== undefined) columns.status_code_mapping = checkStatusCodeMapping(input.status_code_mapping);
  if (input.setting !== undefined) columns.setting = checkOptionalObject(input.setting, '渠道额外设置');
  if (input.param_override !== undefined) columns.param_override = checkOptionalObject(input.param_override, '参数覆盖');
  if (input.header_override !== undefined) columns.header_override = checkHeaderOverride(input.header_override);
  // An empty key on update means "keep the stored one": keys are never sent back to the form.
  if (input.key !== undefined && input.key.trim() !== '') columns.key = input.key.trim();
  if (input.base_url !== undefined) columns.base_url = checkBaseUrl(input.base_url);
  if (input.other !== undefined) columns.other = input.other.trim();
  if (input.test_model !== undefined) columns.test_model = input.test_model.trim();
  if (input.openai_organization !== undefined) columns.openai_organization = input.openai_organization.trim();
  if (input.remark !== undefined) columns.remark = input.remark.trim();
  if (input.auto_ban !== undefined) columns.auto_ban = input.auto_ban;
  if (input.tag !== undefined) {
    const tag = input.tag.trim();
    if ([...tag].length > TAG_MAX) throw badRequest(`标签不能超过 ${TAG_MAX} 个字符`, 'channel:tag_too_long');
    columns.tag = tag;
  }
  if (input.priority !== undefined) columns.priority = checkPriority(input.priority);
  if (input.weight !== undefined) columns.weight = clampWeight(input.weight);
  return columns;
}

export function checkPriority(priority: number): number {
  if (priority < PRIORITY_MIN) throw badRequest(`优先级不能小于 ${PRIORITY_MIN}`, 'channel:invalid_priority');
  return priority;
}

/** A negative weight means "never picked by weight", which 0 already says. */
export const clampWeight = (weight: number): number => Math.max(0, weight);

/**
 * The fields a channel cannot exist without. On create every one is checked; on update only
 * those being written (an update that leaves a field out keeps the stored value).
 */
export function checkRequired(channel: Partial<Pick<ChannelWritable, 'type' | 'name' | 'group' | 'models' | 'key'>>, creating: boolean): void {
  const given = (field: keyof typeof channel) => creating || channel[field] !== undefined;
  if (given('type') && !isKnownChannelType(channel.type ?? 0)) throw badRequest('请选择渠道类型', 'channel:missing_type');
  if (given('name') && (channel.name ?? '').trim() === '') throw badRequest('渠道名称不能为空', 'channel:missing_name');
  if (given('group') && splitList(channel.group).length === 0) throw badRequest('请至少选择一个分组', 'channel:missing_group');
  if (given('models') && splitList(channel.models).length === 0) throw badRequest('请至少选择一个模型', 'channel:missing_models');
  if (creating && (channel.key ?? '').trim() === '') throw badRequest('渠道密钥不能为空', 'channel:missing_key');
}

/** A channel as the console sees it. The key never leaves the server: it is always ''. */
export function toWireChannel(row: ChannelRow): WireChannel {
  return {
    id: Number(row.id),
    type: Number(row.type),
    key: '',
    openai_organization: row.openai_organization,
    test_model: row.test_model,
    status: Number(row.status),
    name: row.name,
    weight: Number(row.weight),
    created_time: Number(row.created_time),
    test_time: Number(row.test_time),
    response_time: Number(row.response_time),
    base_url: row.base_url,
    other: row.other,
    balance: Number(row.balance),
    balance_updated_time: Number(row.balance_updated_time),
    models: row.models,
    group: row.group,
    used_quota: Number(row.used_quota),
    model_mapping: row.model_mapping,
    status_code_mapping: row.status_code_mapping,
    priority: Number(row.priority),
    auto_ban: Number(row.auto_ban),
    // Status reasons written before reasons were masked may still quote the key.
    other_info: maskSecrets(row.other_info, channelSecrets(row.key)),
    tag: row.tag,
    setting: row.setting,
    param_override: row.param_override,
    header_override: row.header_override,
    remark: row.remark,
    expired_time: Number(row.expired_time),
    channel_info: parseChannelInfo(row.channel_info, channelKeys(row.key, Number(row.type)).length),
  };
}

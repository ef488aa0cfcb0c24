import { ChannelStatus, ChannelType, channelTypeInfo } from '@modelgate/contract';
import type { Selectable } from 'kysely';
import type { ChannelsTable } from '../../db/schema.js';
import type { ChannelEndpoint, ProviderAdaptor } from '../../providers/provider-types.js';
import { adaptorFor } from '../../providers/registry.js';
import { enabledKeyIndexes, parseChannelInfo, type MultiKeyMode } from '../channels/multi-key.js';

export type ChannelRow = Selectable<ChannelsTable>;

/**
 * A channel's header_override (new-api's): header name (lower case) → value set on every upstream
 * request, after the adaptor's own headers. `{api_key}` in a value is the key the request uses;
 * the value `{client}` passes the client's own value of that header, when it sent one.
 */
export type HeaderOverride = ReadonlyMap<string, string>;

/** The header_override value that passes the client's own value of that header. */
export const CLIENT_VALUE = '{client}';
/** The placeholder for the channel key a request uses (new-api's `{api_key}`). */
export const KEY_PLACEHOLDER = '{api_key}';

/** Headers a header_override may not set: the transport's own. */
export const UNSETTABLE_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
]);

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A channel as the relay uses it: parsed once when loaded, never per request. */
export interface RelayChannel {
  id: number;
  name: string;
  type: number;
  status: number;
  priority: number;
  weight: number;
  /** May be disabled automatically (auto_ban = 1). */
  autoBan: boolean;
  /**
   * The keys a request may use: a multi-line key field holds several keys for one channel (new-api's
   * multi-key mode), each request picking one at random or in turn (`multiKeyMode`) among those
   * whose circuit breaker is closed (relay/channel-breaker.ts). Keys disabled by hand or
   * automatically (channel_info, domain/channels/multi-key.ts) are left out.
   */
  keys: string[];
  /** Every key of the channel, disabled ones included (messages are masked with all of them). */
  allKeys: string[];
  /** For each of `keys`, its index in the channel's key list (what channel_info and the console name it by). */
  keyIndexes: number[];
  multiKeyMode: MultiKeyMode;
  /** The next key in turn, for `polling` (this node's count). */
  turn: number;
  endpoint: ChannelEndpoint;
  /** Client model → upstream model. */
  modelMapping: ReadonlyMap<string, string> | undefined;
  /** Upstream status → the status the client sees. */
  statusCodeMapping: ReadonlyMap<number, number> | undefined;
  models: string[];
  testModel: string;
  /** undefined when this version cannot relay to the channel's type. */
  adaptor: ProviderAdaptor | undefined;
  /** Why the endpoint could not be built (no base URL for a type that needs one, bad URL). */
  endpointProblem: string | undefined;
  /**
   * The channel setting `responses_api`: "native" sends /v1/responses calls to the upstream's own
   * Responses API, "chat" converts them to chat completions; unset, the channel's type decides.
   */
  responsesApi: 'native' | 'chat' | undefined;
  /** header_override, checked when saved; undefined when empty. */
  headerOverride: HeaderOverride | undefined;
}

/** The index of the key a request takes from `channel.keys`: the next in turn (`polling`), else one at random. */
export function nextKeyIndex(channel: RelayChannel, random: () => number = Math.random): number {
  const count = channel.keys.length;
  if (count <= 1) return 0;
  return channel.multiKeyMode === 'polling' ? channel.turn++ % count : Math.floor(random() * count);
}

/** A channel's key field as its keys: one per line (a multi-key channel has several). */
export const channelKeys = (keyField: string, type?: number): string[] => {
  const split = type === undefined ? undefined : adaptorFor(type)?.channelKeys;
  if (split) return split(keyField);
  return keyField
    .split('\n')
    .map((key) => key.trim())
    .filter((key) => key !== '');
};

const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '{}') return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function parseModelMapping(text: string): ReadonlyMap<string, string> | undefined {
  const object = parseJsonObject(text);
  if (!object) return undefined;
  const mapping = new Map<string, string>();
  for (const [from, to] of Object.entries(object)) {
    if (typeof to === 'string' && to.trim() !== '' && to !== from) mapping.set(from, to.trim());
  }
  return mapping.size > 0 ? mapping : undefined;
}

function parseStatusCodeMapping(text: string): ReadonlyMap<number, number> | undefined {
  const object = parseJsonObject(text);
  if (!object) return undefined;
  const mapping = new Map<number, number>();
  for (const [from, to] of Object.entries(object)) {
    const source = Number(from);
    const target = Number(to);
    if (Number.isInteger(source) && Number.isInteger(target) && target >= 100 && target <= 599) mapping.set(source, target);
  }
  return mapping.size > 0 ? mapping : undefined;
}

/**
 * Splits a base URL into origin and the rest, keeping the rest's characters as typed (a URL
 * parser would escape Custom's `{model}` placeholder).
 */
export function parseBaseUrl(type: number, baseUrl: string): { origin: string; basePath: string } {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported scheme ${url.protocol}`);
  const afterScheme = baseUrl.indexOf('//') + 2;
  const pathStart = baseUrl.slice(afterScheme).search(/[/?#]/);
  let rest = pathStart === -1 ? '' : baseUrl.slice(afterScheme + pathStart);
  const hash = rest.indexOf('#');
  if (hash !== -1) rest = rest.slice(0, hash);
  if (type !== ChannelType.Custom) rest = rest.replace(/\?.*$/, '').replace(/\/+$/, '');
  return { origin: url.origin, basePath: rest };
}

export function toRelayChannel(row: ChannelRow): RelayChannel {
  const type = Number(row.type);
  const baseUrl = row.base_url.trim() || channelTypeInfo(type)?.baseUrl || '';
  let endpoint: ChannelEndpoint = { type, origin: '', basePath: '', other: row.other, organization: row.openai_organization };
  let endpointProblem: string | undefined;
  if (baseUrl === '') {
    if (!adaptorFor(type)?.ownOrigin) endpointProblem = '渠道未设置 Base URL (the channel has no base URL)';
  } else {
    try {
      endpoint = { ...endpoint, ...parseBaseUrl(type, baseUrl) };
    } catch {
      endpointProblem = `渠道的 Base URL 无效：${baseUrl} (invalid base URL)`;
    }
  }
  const allKeys = channelKeys(row.key, type);
  const info = parseChannelInfo(row.channel_info, allKeys.length);
  const keyIndexes = allKeys.length > 1 ? enabledKeyIndexes(info, allKeys.length) : allKeys.map((_key, index) => index);
  return {
    id: Number(row.id),
    name: row.name,
    type,
    status: Number(row.status),
    priority: Number(row.priority),
    weight: Math.max(0, Number(row.weight)),
    autoBan: Number(row.auto_ban) === 1,
    keys: keyIndexes.map((index) => allKeys[index]!),
    allKeys,
    keyIndexes,
    multiKeyMode: info.multi_key_mode,
    turn: 0,
    endpoint,
    modelMapping: parseModelMapping(row.model_mapping),
    statusCodeMapping: parseStatusCodeMapping(row.status_code_mapping),
    models: splitList(row.models),
    testModel: row.test_model.trim(),
    adaptor: adaptorFor(type),
    endpointProblem,
    responsesApi: responsesApiOf(row.setting),
    headerOverride: parseHeaderOverride(row.header_override),
  };
}

/** header_override as the relay applies it; entries a save would refuse (stored before the check) are left out. */
export function parseHeaderOverride(text: string | undefined): HeaderOverride | undefined {
  if (text === undefined || text === '') return undefined;
  const object = parseJsonObject(text);
  if (!object) return undefined;
  const override = new Map<string, string>();
  for (const [name, value] of Object.entries(object)) {
    const key = name.toLowerCase();
    if (typeof value !== 'string' || !HEADER_NAME.test(name) || UNSETTABLE_HEADERS.has(key) || /[\r\n\0]/.test(value)) continue;
    override.set(key, value);
  }
  return override.size > 0 ? override : undefined;
}

function responsesApiOf(setting: string | undefined): 'native' | 'chat' | undefined {
  // Rows built by hand (tests, imports of old rows) may lack the column.
  if (setting === undefined || setting === '') return undefined;
  const value = parseJsonObject(setting)?.responses_api;
  return value === 'native' || value === 'chat' ? value : undefined;
}

/** Can carry relayed traffic: enabled, of a type this version serves, with a usable URL and key. */
export const isRoutable = (channel: RelayChannel): boolean =>
  channel.status === ChannelStatus.Enabled && channel.adaptor !== undefined && channel.endpointProblem === undefined && channel.keys.length > 0;

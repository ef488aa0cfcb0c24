import { CHANNEL_TYPES, ChannelType, channelTypeInfo } from '@modelgate/contract';
import { z } from 'zod';
import { AppError, badRequest } from '../../errors/app-error.js';
import { splitList } from './channel-fields.js';
import { channelSecrets, maskSecrets } from '../../lib/mask-secrets.js';
import type { ChannelEndpoint, ModelListing, UpstreamJsonGet } from '../../providers/provider-types.js';
import { adaptorFor } from '../../providers/registry.js';
import { parseBaseUrl } from '../relay-cache/relay-channel.js';
import { firstKey, getUpstreamJson, type UpstreamCall } from './upstream-http.js';

/** The types whose contract row names the models they serve (the rest serve what their channels are configured with). */
const SERVING_TYPES = CHANNEL_TYPES.flatMap((info) => (info.models ? [{ type: info.value, pattern: info.models }] : []));

export interface CatalogueModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  /** Channel types that serve the model by name or by a configured channel. */
  channel_types: number[];
}

/**
 * Every model the gateway knows: priced ones (ModelRatio and ModelPrice) matched to the types
 * that serve them, plus every model a channel is configured with.
 */
export function modelCatalogue(pricedModels: Iterable<string>, channelModels: { type: number; models: string }[]): CatalogueModel[] {
  const types = new Map<string, Set<number>>();
  const add = (model: string, type?: number) => {
    let set = types.get(model);
    if (!set) types.set(model, (set = new Set()));
    if (type !== undefined) set.add(type);
  };
  for (const model of pricedModels) {
    add(model);
    for (const { type, pattern } of SERVING_TYPES) if (pattern.test(model)) add(model, type);
  }
  for (const channel of channelModels) for (const model of splitList(channel.models)) add(model, Number(channel.type));

  return [...types.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, set]) => {
      const sorted = [...set].sort((a, b) => a - b);
      // OpenRouter serves every name: another type that serves it owns it.
      const owner = sorted.find((type) => type !== ChannelType.OpenRouter) ?? sorted[0];
      return {
        id,
        object: 'model' as const,
        created: 0,
        owned_by: owner === undefined ? 'custom' : (channelTypeInfo(owner)?.name ?? 'custom'),
        channel_types: sorted,
      };
    });
}

export interface ModelSource {
  type: number;
  base_url: string;
  key: string;
}

const openAiModels = z.object({ data: z.array(z.object({ id: z.string() })) });

const WHAT = '获取模型列表';

/** The model ids the upstream of a channel (or of a channel being filled in) lists. */
export async function fetchUpstreamModels(source: ModelSource, options: { timeoutMs: number }): Promise<string[]> {
  const info = channelTypeInfo(source.type);
  if (!info) throw badRequest(`未知的渠道类型：${source.type}`, 'channel:unknown_type');
  const listing = adaptorFor(source.type)?.modelList;
  // A listing from the base URL (Gemini, Anthropic, Ollama) or OpenAI's /v1/models is checked below; the others build their own call.
  if (listing && listing.kind !== 'base') return listWithAdaptor(source, listing, options);
  const base = (source.base_url || info.baseUrl).trim().replace(/\/+$/, '');
  if (base === '') throw badRequest('请先填写渠道的 Base URL', 'channel:missing_base_url');
  if (!/^https?:\/\//i.test(base)) throw badRequest('Base URL 必须以 http:// 或 https:// 开头', 'channel:invalid_base_url');
  const key = firstKey(source.key);
  if (key === '') throw badRequest('请先填写渠道密钥', 'channel:missing_key');
  const call: UpstreamCall = { what: WHAT, secrets: channelSecrets(source.key), timeoutMs: options.timeoutMs };

  const get: UpstreamJsonGet = (url, headers, schema) => getUpstreamJson(call, url, headers, schema);
  const ids = listing ? await listing.list(base, key, get) : await listOpenAiModels(base, key, get);
  return [...new Set(ids)];
}

/** OpenAI's /v1/models, which the OpenAI-compatible vendors answer too (a base URL ending in a version keeps it). */
async function listOpenAiModels(base: string, key: string, get: UpstreamJsonGet): Promise<string[]> {
  const url = /\/v\d+$/.test(base) ? `${base}/models` : `${base}/v1/models`;
  return (await get(url, { authorization: `Bearer ${key}` }, openAiModels)).data.map((model) => model.id);
}

/** Bedrock (a signed call), Vertex (the models this version knows) and Cohere list models through their adaptors. */
async function listWithAdaptor(source: ModelSource, listing: Exclude<ModelListing, { kind: 'base' }>, options: { timeoutMs: number }): Promise<string[]> {
  if (listing.kind === 'known') return [...listing.models];
  const key = firstKey(source.key);
  if (key === '') throw badRequest('请先填写渠道密钥', 'channel:missing_key');
  const base = source.base_url.trim();
  let endpoint: ChannelEndpoint = { type: source.type, origin: '', basePath: '', other: '', organization: '' };
  if (base !== '') {
    try {
      endpoint = { ...endpoint, ...parseBaseUrl(source.type, base) };
    } catch {
      throw badRequest('Base URL 必须以 http:// 或 https:// 开头', 'channel:invalid_base_url');
    }
  } else if (!adaptorFor(source.type)?.ownOrigin) {
    const fallback = channelTypeInfo(source.type)?.baseUrl ?? '';
    if (fallback === '') throw badRequest('请先填写渠道的 Base URL', 'channel:missing_base_url');
    endpoint = { ...endpoint, ...parseBaseUrl(source.type, fallback) };
  }
  let request;
  try {
    request = await listing.request(endpoint, key);
  } catch (error) {
    // A malformed key (Bedrock's AK|SK|Region) is described by the adaptor, without the secret.
    if (error instanceof AppError) throw badRequest(`${WHAT}失败：${maskSecrets(error.message, channelSecrets(source.key))}`, 'channel:fetch_models_failed');
    throw error;
  }
  const call: UpstreamCall = { what: WHAT, secrets: channelSecrets(source.key), timeoutMs: options.timeoutMs };
  const answer = await getUpstreamJson(call, `${request.origin}${request.path}`, request.headers, z.unknown());
  return [...new Set(listing.parse(answer))];
}

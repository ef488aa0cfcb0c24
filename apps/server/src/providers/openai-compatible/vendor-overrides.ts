import { ChannelType } from '@modelgate/contract';
import { z } from 'zod';
import { AppError } from '../../errors/app-error.js';
import type { UpstreamCall } from '../provider-types.js';
import type { OpenAICompatibleOptions } from './openai-compatible-adaptor.js';

/**
 * What sets the OpenAI-compatible vendors apart, by channel type. Types not listed use OpenAI's
 * paths and do not get stream_options (some vendors reject unknown fields; those that report usage
 * on their own still get billed by it, the rest by counting). Paths are the ones new-api calls.
 */

/**
 * Joins a base path and a vendor's endpoint path without repeating the part they share: operators
 * paste base URLs such as `https://open.bigmodel.cn/api/paas/v4` or `.../compatible-mode/v1`, and the
 * endpoint paths already start with that.
 */
export function joinVendorPath(basePath: string, path: string): string {
  const base = basePath.replace(/\/+$/, '');
  const baseSegments = base.split('/').filter(Boolean);
  const pathSegments = path.split('/').filter(Boolean);
  for (let overlap = Math.min(baseSegments.length, pathSegments.length); overlap > 0; overlap -= 1) {
    const tail = baseSegments.slice(baseSegments.length - overlap).join('/');
    if (tail === pathSegments.slice(0, overlap).join('/')) return `${base}/${pathSegments.slice(overlap).join('/')}`;
  }
  return base + path;
}

const vendorTarget = (call: UpstreamCall, path: string) => ({ origin: call.channel.origin, path: joinVendorPath(call.channel.basePath, path) });

/** The message a Cloudflare channel without its account id gets, on save and on each request. */
export const CLOUDFLARE_ACCOUNT_MISSING = 'Cloudflare 渠道需要在“其他”中填写 Account ID (the Cloudflare channel needs its account id in the other field)';

/** Cloudflare Workers AI's OpenAI-compatible API lives under the account, whose id is the channel's `other`. */
function cloudflareTarget(call: UpstreamCall, path: string) {
  const accountId = call.channel.other.trim();
  // Checked on save; a channel stored before that check still fails clearly, and another channel may serve.
  if (accountId === '') throw new AppError('channel:missing_account_id', CLOUDFLARE_ACCOUNT_MISSING, { status: 500, retryable: true });
  return { origin: call.channel.origin, path: joinVendorPath(call.channel.basePath, `/client/v4/accounts/${encodeURIComponent(accountId)}/ai${path}`) };
}

const ollamaModels = z.object({ models: z.array(z.object({ name: z.string() })) });

export const VENDOR_OVERRIDES: Readonly<Record<number, Partial<OpenAICompatibleOptions>>> = {
  // The vendors whose own API serves /v1/responses (the others get Responses calls as chat).
  [ChannelType.OpenAI]: { streamUsageOption: true, chatOutputLimitField: 'max_completion_tokens', nativeResponses: true },
  [ChannelType.Ollama]: {
    streamUsageOption: true,
    // Ollama lists what it has pulled at /api/tags, not at /v1/models.
    modelList: { kind: 'base', list: async (base, _key, get) => (await get(`${base}/api/tags`, {}, ollamaModels)).models.map((model) => model.name) },
  },
  [ChannelType.OpenRouter]: { streamUsageOption: true, nativeResponses: true },
  [ChannelType.DeepSeek]: { streamUsageOption: true },
  [ChannelType.Xai]: { streamUsageOption: true, nativeResponses: true },
  // 智谱 ChatGLM and GLM-4V: the v4 API (https://open.bigmodel.cn/api/paas/v4) with the API key as a Bearer token.
  [ChannelType.Zhipu]: {
    paths: { chat: '/api/paas/v4/chat/completions', embeddings: '/api/paas/v4/embeddings', images: '/api/paas/v4/images/generations' },
    only: true,
    target: vendorTarget,
  },
  [ChannelType.ZhipuV4]: {
    paths: { chat: '/api/paas/v4/chat/completions', embeddings: '/api/paas/v4/embeddings', images: '/api/paas/v4/images/generations' },
    only: true,
    target: vendorTarget,
  },
  // 阿里通义千问: DashScope's OpenAI-compatible mode (its images and rerank are DashScope's own format).
  [ChannelType.Ali]: {
    streamUsageOption: true,
    paths: { chat: '/compatible-mode/v1/chat/completions', embeddings: '/compatible-mode/v1/embeddings' },
    only: true,
    target: vendorTarget,
  },
  // 腾讯混元: the OpenAI-compatible endpoint https://api.hunyuan.cloud.tencent.com/v1.
  [ChannelType.Tencent]: { paths: { chat: '/v1/chat/completions', embeddings: '/v1/embeddings' }, only: true },
  // Perplexity serves chat only, without the /v1 prefix.
  [ChannelType.Perplexity]: { paths: { chat: '/chat/completions' }, only: true },
  // MiniMax's OpenAI-style chat lives under its own name.
  [ChannelType.MiniMax]: { paths: { chat: '/v1/text/chatcompletion_v2', embeddings: '/v1/embeddings' }, only: true },
  // Cloudflare Workers AI (developers.cloudflare.com/workers-ai/configuration/open-ai-compatibility):
  // /client/v4/accounts/<account id>/ai/v1/..., the account id from `other`.
  [ChannelType.Cloudflare]: {
    paths: { chat: '/v1/chat/completions', embeddings: '/v1/embeddings', responses: '/v1/responses' },
    only: true,
    target: cloudflareTarget,
  },
  // 字节火山方舟: Ark's /api/v3 API (model names are the endpoint ids, ep-...).
  [ChannelType.VolcEngine]: {
    streamUsageOption: true,
    paths: { chat: '/api/v3/chat/completions', embeddings: '/api/v3/embeddings', images: '/api/v3/images/generations', responses: '/api/v3/responses' },
    only: true,
    target: vendorTarget,
  },
  // Baidu Qianfan V2 is OpenAI-compatible under /v2.
  [ChannelType.BaiduV2]: {
    paths: { chat: '/v2/chat/completions', embeddings: '/v2/embeddings', images: '/v2/images/generations', rerank: '/v2/rerank' },
    only: true,
  },
};

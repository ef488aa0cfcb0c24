import type { OpenAICompatibleOptions } from './openai-compatible-adaptor.js';

/**
 * What sets the OpenAI-compatible vendors apart, by channel type. Types not listed use OpenAI's
 * paths and do not get stream_options (some vendors reject unknown fields; those that report usage
 * on their own still get billed by it, the rest by counting).
 */
export const VENDOR_OVERRIDES: Readonly<Record<number, Partial<OpenAICompatibleOptions>>> = {
  1: { streamUsageOption: true },
  4: { streamUsageOption: true },
  20: { streamUsageOption: true },
  43: { streamUsageOption: true },
  48: { streamUsageOption: true },
  // Perplexity serves chat only, without the /v1 prefix.
  27: { paths: { chat: '/chat/completions' }, only: true },
  // MiniMax's OpenAI-style chat lives under its own name.
  35: { paths: { chat: '/v1/text/chatcompletion_v2', embeddings: '/v1/embeddings' }, only: true },
  // Baidu Qianfan V2 is OpenAI-compatible under /v2.
  46: {
    paths: { chat: '/v2/chat/completions', embeddings: '/v2/embeddings', images: '/v2/images/generations', rerank: '/v2/rerank' },
    only: true,
  },
};

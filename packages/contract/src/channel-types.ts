/**
 * The upstream channel types, numbered as new-api numbers them so that existing databases,
 * scripts and clients keep their meaning. This table is the only place the numbers live.
 *
 * `openaiCompatible` marks the types whose upstream speaks the OpenAI wire format and is served
 * by the OpenAI-compatible adaptor factory (their paths in the server's vendor-overrides.ts).
 * 智谱 (16, 26) is served on its v4 API with a Bearer API key (new-api's type 16 signed a JWT for
 * v3, which Zhipu has retired); 腾讯混元 (23) on its OpenAI-compatible endpoint with a Hunyuan API
 * key, not the SecretId/SecretKey of the TC3-signed API new-api calls.
 */
export interface ChannelTypeInfo {
  readonly value: number;
  readonly name: string;
  readonly baseUrl: string;
  readonly openaiCompatible: boolean;
}

const t = (value: number, name: string, baseUrl: string, openaiCompatible = false): ChannelTypeInfo => ({
  value,
  name,
  baseUrl,
  openaiCompatible,
});

export const CHANNEL_TYPES: readonly ChannelTypeInfo[] = [
  t(1, 'OpenAI', 'https://api.openai.com', true),
  t(2, 'Midjourney Proxy', ''),
  t(3, 'Azure OpenAI', '', true),
  t(4, 'Ollama', 'http://localhost:11434', true),
  t(5, 'Midjourney Proxy Plus', ''),
  t(6, 'OpenAI Max', 'https://api.openaimax.com', true),
  t(7, 'OhMyGPT', 'https://api.ohmygpt.com', true),
  t(8, '自定义渠道 (Custom)', '', true),
  t(9, 'AILS', 'https://api.caipacity.com', true),
  t(10, 'AI Proxy', 'https://api.aiproxy.io', true),
  t(11, 'Google PaLM2', ''),
  t(12, 'API2GPT', 'https://api.api2gpt.com', true),
  t(13, 'AIGC2D', 'https://api.aigc2d.com', true),
  t(14, 'Anthropic Claude', 'https://api.anthropic.com'),
  t(15, '百度文心千帆', 'https://aip.baidubce.com'),
  t(16, '智谱 ChatGLM', 'https://open.bigmodel.cn', true),
  t(17, '阿里通义千问', 'https://dashscope.aliyuncs.com', true),
  t(18, '讯飞星火认知', ''),
  t(19, '360 智脑', 'https://ai.360.cn', true),
  t(20, 'OpenRouter', 'https://openrouter.ai/api', true),
  t(21, '知识库：AI Proxy', 'https://api.aiproxy.io'),
  t(22, '知识库：FastGPT', 'https://fastgpt.run/api/openapi', true),
  t(23, '腾讯混元', 'https://api.hunyuan.cloud.tencent.com', true),
  t(24, 'Google Gemini', 'https://generativelanguage.googleapis.com'),
  t(25, 'Moonshot', 'https://api.moonshot.cn', true),
  t(26, '智谱 GLM-4V', 'https://open.bigmodel.cn', true),
  t(27, 'Perplexity', 'https://api.perplexity.ai', true),
  t(31, '零一万物', 'https://api.lingyiwanwu.com', true),
  t(33, 'AWS Claude', ''),
  t(34, 'Cohere', 'https://api.cohere.com'),
  t(35, 'MiniMax', 'https://api.minimax.chat', true),
  t(36, 'Suno API', ''),
  t(37, 'Dify', 'https://api.dify.ai'),
  t(38, 'Jina', 'https://api.jina.ai', true),
  t(39, 'Cloudflare', 'https://api.cloudflare.com', true),
  t(40, 'SiliconCloud', 'https://api.siliconflow.cn', true),
  t(41, 'Vertex AI', ''),
  t(42, 'Mistral AI', 'https://api.mistral.ai', true),
  t(43, 'DeepSeek', 'https://api.deepseek.com', true),
  t(44, 'MokaAI M3E', 'https://api.moka.ai', true),
  t(45, '字节火山方舟、豆包', 'https://ark.cn-beijing.volces.com', true),
  t(46, '百度文心千帆 V2', 'https://qianfan.baidubce.com', true),
  t(47, 'Xinference', '', true),
  t(48, 'xAI', 'https://api.x.ai', true),
  t(49, 'Coze', 'https://api.coze.cn'),
  t(50, '可灵 Kling', 'https://api.klingai.com'),
  t(51, '即梦 Jimeng', 'https://visual.volcengineapi.com'),
  t(52, 'Vidu', 'https://api.vidu.cn'),
  t(53, 'SubModel', 'https://llm.submodel.ai', true),
  t(54, '豆包视频 Doubao Video', 'https://ark.cn-beijing.volces.com'),
  t(55, 'Sora', 'https://api.openai.com'),
  t(56, 'Replicate', 'https://api.replicate.com'),
];

export const ChannelType = {
  OpenAI: 1,
  Midjourney: 2,
  Azure: 3,
  Ollama: 4,
  MidjourneyPlus: 5,
  Custom: 8,
  Anthropic: 14,
  Gemini: 24,
  Cohere: 34,
  SunoAPI: 36,
  Cloudflare: 39,
  VertexAI: 41,
} as const;

const byValue = new Map(CHANNEL_TYPES.map((info) => [info.value, info]));

export const channelTypeInfo = (value: number): ChannelTypeInfo | undefined => byValue.get(value);
export const isKnownChannelType = (value: number): boolean => byValue.has(value);

/**
 * Types served by an adaptor of their own rather than the OpenAI-compatible factory (the server's
 * providers/registry.ts registers each; a server test keeps the two lists equal).
 */
const NATIVE_RELAY_TYPES: ReadonlySet<number> = new Set([14, 24, 33, 34, 41]);

/** Types the task relays serve (Midjourney-proxy and Suno): channels of their own, not chat upstreams. */
export const TASK_CHANNEL_TYPES: ReadonlySet<number> = new Set([ChannelType.Midjourney, ChannelType.MidjourneyPlus, ChannelType.SunoAPI]);

/**
 * Whether a channel of this type can be saved: this version relays to it (or runs its tasks). The
 * console disables the others in its type picker; the server refuses them on save.
 */
export const canRelayChannelType = (value: number): boolean =>
  byValue.get(value)?.openaiCompatible === true || NATIVE_RELAY_TYPES.has(value) || TASK_CHANNEL_TYPES.has(value);

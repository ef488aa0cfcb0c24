/**
 * The upstream channel types, numbered as new-api numbers them so that existing databases,
 * scripts and clients keep their meaning. This table is the only place the numbers live, and
 * it says what the rest of the code needs of a type: how it is relayed, the model names it serves
 * and the console fields it asks for. A new provider is a row here, a folder in the server's
 * providers/ and a line in its registry.
 *
 * 智谱 (16, 26) is served on its v4 API with a Bearer API key (new-api's type 16 signed a JWT for
 * v3, which Zhipu has retired); 腾讯混元 (23) on its OpenAI-compatible endpoint with a Hunyuan API
 * key, not the SecretId/SecretKey of the TC3-signed API new-api calls.
 */
/** How this version relays a type: the OpenAI-compatible factory, an adaptor of its own, the task relays, or not at all. */
export type ChannelRelay = 'openai' | 'native' | 'task' | 'none';

/**
 * The console's channel form for a type, beyond the common fields. Texts are the console's i18n
 * keys under `form.` (label `<text>`, placeholder `<text>Placeholder`, hint `<text>Hint`).
 */
export interface ChannelTypeForm {
  /** base_url read as something else than a plain base URL: required, or with a hint. */
  readonly baseUrl?:
    | { readonly text: 'azureEndpoint' | 'customUrl' | 'privateUrl'; readonly required: true }
    | { readonly text: 'sunoUrl'; readonly hint: true };
  /** The type keeps a value of its own in `other`. */
  readonly other?:
    | { readonly text: 'azureVersion' | 'sparkVersion' | 'knowledgeId' }
    | { readonly text: 'accountId'; readonly required: true; readonly hint: true }
    | { readonly text: 'region'; readonly hint: true; readonly multiline: true };
  /** The key is not one plain API key (new-api's prompts); `multiline` for a JSON key. */
  readonly key?:
    | { readonly text: 'keyFastgpt' | 'keyCloudflare' }
    | { readonly text: 'keyHunyuan' | 'keyAws'; readonly hint: true }
    | { readonly text: 'keyVertex'; readonly hint: true; readonly multiline: true };
  /** OpenAI's organization header. */
  readonly organization?: boolean;
  /** The custom type's JSON settings. */
  readonly customSetting?: boolean;
  /** The models the form's model fill adds, in place of the catalogue's (Midjourney's action "models", spec 02 §9). */
  readonly presetModels?: readonly string[];
}

/** Which balance API the provider's account answers, and the currency it reports the balance in. */
export interface ChannelTypeBalance {
  readonly api: 'openai' | 'openrouter' | 'siliconflow' | 'deepseek';
  readonly currency: 'USD' | 'CNY';
}

export interface ChannelTypeInfo {
  readonly value: number;
  readonly name: string;
  readonly baseUrl: string;
  readonly relay: ChannelRelay;
  /** relay === 'openai': the upstream speaks the OpenAI wire format (paths in the server's vendor-overrides.ts). */
  readonly openaiCompatible: boolean;
  /** The model names this type serves: the catalogue's channel types and the form's model fill. */
  readonly models?: RegExp;
  /** Names only the form's model fill offers (a vendor the catalogue does not cover), or OpenAI's list for its resellers. */
  readonly offers?: RegExp | 'openai';
  readonly form?: ChannelTypeForm;
  /** The type's account reports its balance (the console's 余额 column and its update buttons). */
  readonly balance?: ChannelTypeBalance;
}

/** Every channel type by name, numbered as new-api numbers them. */
export const ChannelType = {
  OpenAI: 1,
  Midjourney: 2,
  Azure: 3,
  Ollama: 4,
  MidjourneyPlus: 5,
  OpenAIMax: 6,
  OhMyGPT: 7,
  Custom: 8,
  AILS: 9,
  AIProxy: 10,
  PaLM: 11,
  API2GPT: 12,
  AIGC2D: 13,
  Anthropic: 14,
  Baidu: 15,
  Zhipu: 16,
  Ali: 17,
  Xunfei: 18,
  AI360: 19,
  OpenRouter: 20,
  AIProxyLibrary: 21,
  FastGPT: 22,
  Tencent: 23,
  Gemini: 24,
  Moonshot: 25,
  ZhipuV4: 26,
  Perplexity: 27,
  LingYiWanWu: 31,
  AwsClaude: 33,
  Cohere: 34,
  MiniMax: 35,
  SunoAPI: 36,
  Dify: 37,
  Jina: 38,
  Cloudflare: 39,
  SiliconFlow: 40,
  VertexAI: 41,
  Mistral: 42,
  DeepSeek: 43,
  MokaAI: 44,
  VolcEngine: 45,
  BaiduV2: 46,
  Xinference: 47,
  Xai: 48,
  Coze: 49,
  Kling: 50,
  Jimeng: 51,
  Vidu: 52,
  SubModel: 53,
  DoubaoVideo: 54,
  Sora: 55,
  Replicate: 56,
} as const;

type Extra = Pick<ChannelTypeInfo, 'models' | 'offers' | 'form' | 'balance'>;

const t = (value: number, name: string, baseUrl: string, relay: ChannelRelay, extra: Extra = {}): ChannelTypeInfo => ({
  value,
  name,
  baseUrl,
  relay,
  openaiCompatible: relay === 'openai',
  ...extra,
});

const C = ChannelType;
const OPENAI_MODELS = /^(gpt-|chatgpt-|o\d|text-embedding-3|text-embedding-ada|text-moderation|omni-moderation|whisper|tts-|dall-e|davinci|babbage)/;
const OPENAI_BALANCE: ChannelTypeBalance = { api: 'openai', currency: 'USD' };
const MIDJOURNEY_MODELS = ['mj_imagine', 'mj_variation', 'mj_reroll', 'mj_blend', 'mj_upscale', 'mj_describe', 'mj_uploads'];
const MIDJOURNEY_PLUS_MODELS = [
  ...MIDJOURNEY_MODELS,
  'swap_face',
  'mj_zoom',
  'mj_shorten',
  'mj_modal',
  'mj_inpaint',
  'mj_custom_zoom',
  'mj_high_variation',
  'mj_low_variation',
  'mj_pan',
];

export const CHANNEL_TYPES: readonly ChannelTypeInfo[] = [
  t(C.OpenAI, 'OpenAI', 'https://api.openai.com', 'openai', { models: OPENAI_MODELS, form: { organization: true }, balance: OPENAI_BALANCE }),
  t(C.Midjourney, 'Midjourney Proxy', '', 'task', { models: /^mj_/, form: { presetModels: MIDJOURNEY_MODELS } }),
  t(C.Azure, 'Azure OpenAI', '', 'openai', {
    models: /^(gpt-|o\d|text-embedding-3|text-embedding-ada|whisper|tts-|dall-e)/,
    form: { baseUrl: { text: 'azureEndpoint', required: true }, other: { text: 'azureVersion' } },
  }),
  t(C.Ollama, 'Ollama', 'http://localhost:11434', 'openai'),
  t(C.MidjourneyPlus, 'Midjourney Proxy Plus', '', 'task', { models: /^mj_/, form: { presetModels: MIDJOURNEY_PLUS_MODELS } }),
  t(C.OpenAIMax, 'OpenAI Max', 'https://api.openaimax.com', 'openai', { offers: 'openai' }),
  t(C.OhMyGPT, 'OhMyGPT', 'https://api.ohmygpt.com', 'openai', { offers: 'openai' }),
  t(C.Custom, '自定义渠道 (Custom)', '', 'openai', {
    offers: 'openai',
    form: { baseUrl: { text: 'customUrl', required: true }, customSetting: true },
    balance: OPENAI_BALANCE,
  }),
  t(C.AILS, 'AILS', 'https://api.caipacity.com', 'openai', { offers: 'openai' }),
  t(C.AIProxy, 'AI Proxy', 'https://api.aiproxy.io', 'openai', { offers: 'openai' }),
  t(C.PaLM, 'Google PaLM2', '', 'none'),
  t(C.API2GPT, 'API2GPT', 'https://api.api2gpt.com', 'openai', { offers: 'openai' }),
  t(C.AIGC2D, 'AIGC2D', 'https://api.aigc2d.com', 'openai', { offers: 'openai' }),
  t(C.Anthropic, 'Anthropic Claude', 'https://api.anthropic.com', 'native', { models: /^claude-/ }),
  t(C.Baidu, '百度文心千帆', 'https://aip.baidubce.com', 'none', { offers: /^ernie-/i }),
  t(C.Zhipu, '智谱 ChatGLM', 'https://open.bigmodel.cn', 'openai', { offers: /^(glm-|chatglm|cogview-)/i }),
  t(C.Ali, '阿里通义千问', 'https://dashscope.aliyuncs.com', 'openai', { offers: /^(qwen|qwq-|qvq-)/i }),
  t(C.Xunfei, '讯飞星火认知', '', 'none', { form: { other: { text: 'sparkVersion' } } }),
  t(C.AI360, '360 智脑', 'https://ai.360.cn', 'openai', { offers: /^360/i }),
  // Serves every model by name; the catalogue names another owner when there is one.
  t(C.OpenRouter, 'OpenRouter', 'https://openrouter.ai/api', 'openai', { models: /./, balance: { api: 'openrouter', currency: 'USD' } }),
  t(C.AIProxyLibrary, '知识库：AI Proxy', 'https://api.aiproxy.io', 'none', { form: { other: { text: 'knowledgeId' } } }),
  t(C.FastGPT, '知识库：FastGPT', 'https://fastgpt.run/api/openapi', 'openai', {
    form: { baseUrl: { text: 'privateUrl', required: true }, key: { text: 'keyFastgpt' } },
  }),
  t(C.Tencent, '腾讯混元', 'https://api.hunyuan.cloud.tencent.com', 'openai', { offers: /^hunyuan-/i, form: { key: { text: 'keyHunyuan', hint: true } } }),
  t(C.Gemini, 'Google Gemini', 'https://generativelanguage.googleapis.com', 'native', { models: /^(gemini-|gemma-|text-embedding-004|imagen-)/ }),
  t(C.Moonshot, 'Moonshot', 'https://api.moonshot.cn', 'openai', { models: /^(moonshot-|kimi-)/ }),
  t(C.ZhipuV4, '智谱 GLM-4V', 'https://open.bigmodel.cn', 'openai', { offers: /^glm-4v/i }),
  t(C.Perplexity, 'Perplexity', 'https://api.perplexity.ai', 'openai', { offers: /^(sonar|llama-3\.1-sonar)/i }),
  t(C.LingYiWanWu, '零一万物', 'https://api.lingyiwanwu.com', 'openai', { offers: /^yi-/i }),
  t(C.AwsClaude, 'AWS Claude', '', 'native', { models: /^claude-/, form: { key: { text: 'keyAws', hint: true } } }),
  t(C.Cohere, 'Cohere', 'https://api.cohere.com', 'native', { offers: /^(command|embed-|rerank-)/i }),
  t(C.MiniMax, 'MiniMax', 'https://api.minimax.chat', 'openai', { offers: /^(abab|minimax-)/i }),
  t(C.SunoAPI, 'Suno API', '', 'task', { models: /^suno_/, form: { baseUrl: { text: 'sunoUrl', hint: true } } }),
  t(C.Dify, 'Dify', 'https://api.dify.ai', 'none'),
  t(C.Jina, 'Jina', 'https://api.jina.ai', 'openai', { offers: /^jina-/i }),
  t(C.Cloudflare, 'Cloudflare', 'https://api.cloudflare.com', 'openai', {
    offers: /^@cf\//,
    form: { other: { text: 'accountId', required: true, hint: true }, key: { text: 'keyCloudflare' } },
  }),
  t(C.SiliconFlow, 'SiliconCloud', 'https://api.siliconflow.cn', 'openai', { balance: { api: 'siliconflow', currency: 'CNY' } }),
  t(C.VertexAI, 'Vertex AI', '', 'native', {
    models: /^(gemini-|claude-|imagen-)/,
    form: { other: { text: 'region', hint: true, multiline: true }, key: { text: 'keyVertex', hint: true, multiline: true } },
  }),
  t(C.Mistral, 'Mistral AI', 'https://api.mistral.ai', 'openai', { models: /^(mistral-|codestral-|open-mistral|pixtral-)/ }),
  t(C.DeepSeek, 'DeepSeek', 'https://api.deepseek.com', 'openai', { models: /^deepseek-/, balance: { api: 'deepseek', currency: 'CNY' } }),
  t(C.MokaAI, 'MokaAI M3E', 'https://api.moka.ai', 'openai'),
  t(C.VolcEngine, '字节火山方舟、豆包', 'https://ark.cn-beijing.volces.com', 'openai', { offers: /^doubao-/i }),
  t(C.BaiduV2, '百度文心千帆 V2', 'https://qianfan.baidubce.com', 'openai', { offers: /^ernie-/i }),
  t(C.Xinference, 'Xinference', '', 'openai'),
  t(C.Xai, 'xAI', 'https://api.x.ai', 'openai', { models: /^grok-/ }),
  t(C.Coze, 'Coze', 'https://api.coze.cn', 'none', { offers: /^coze-/i }),
  t(C.Kling, '可灵 Kling', 'https://api.klingai.com', 'none', { offers: /^kling-/i }),
  t(C.Jimeng, '即梦 Jimeng', 'https://visual.volcengineapi.com', 'none', { offers: /^jimeng-/i }),
  t(C.Vidu, 'Vidu', 'https://api.vidu.cn', 'none', { offers: /^vidu/i }),
  t(C.SubModel, 'SubModel', 'https://llm.submodel.ai', 'openai'),
  t(C.DoubaoVideo, '豆包视频 Doubao Video', 'https://ark.cn-beijing.volces.com', 'none', { offers: /^doubao-seedance-/i }),
  t(C.Sora, 'Sora', 'https://api.openai.com', 'none', { offers: /^sora-/i }),
  t(C.Replicate, 'Replicate', 'https://api.replicate.com', 'none'),
];

const byValue = new Map(CHANNEL_TYPES.map((info) => [info.value, info]));

export const channelTypeInfo = (value: number): ChannelTypeInfo | undefined => byValue.get(value);
export const isKnownChannelType = (value: number): boolean => byValue.has(value);

/** Types the task relays serve (Midjourney-proxy and Suno): channels of their own, not chat upstreams. */
export const TASK_CHANNEL_TYPES: ReadonlySet<number> = new Set(CHANNEL_TYPES.filter((info) => info.relay === 'task').map((info) => info.value));

/**
 * Whether a channel of this type can be saved: this version relays to it (or runs its tasks). The
 * console disables the others in its type picker; the server refuses them on save, and its
 * registry test checks every relayed type has its adaptor.
 */
export const canRelayChannelType = (value: number): boolean => (byValue.get(value)?.relay ?? 'none') !== 'none';

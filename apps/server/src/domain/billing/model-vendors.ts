import type { PricingVendor } from '@modelgate/contract';

/**
 * Who makes a model and what it can do, read from its name: new-api seeds the same from the name
 * when no model meta row describes it (model/pricing_default.go), and modelgate has no such rows.
 * The ids are fixed here, so they stay put between answers; the names are new-api's seeded
 * vendor names and the icons its @lobehub/icons names, so a new-api console shows them too.
 */
const VENDORS: readonly (PricingVendor & { pattern: RegExp })[] = [
  // Searched in this order: a host's prefix (@cf/meta/llama-...) before the model family in it.
  { id: 23, name: 'Cloudflare', icon: 'Cloudflare.Color', pattern: /^@cf\// },
  {
    id: 1,
    name: 'OpenAI',
    icon: 'OpenAI',
    pattern: /^(gpt|chatgpt|o[1-9](-|$)|dall-e|whisper|tts-|text-embedding|text-moderation|omni-moderation|davinci|babbage|sora|codex)|openai/,
  },
  { id: 2, name: 'Anthropic', icon: 'Claude.Color', pattern: /claude/ },
  { id: 3, name: 'Google', icon: 'Gemini.Color', pattern: /gemini|gemma|imagen|^veo|learnlm/ },
  { id: 4, name: 'DeepSeek', icon: 'DeepSeek.Color', pattern: /deepseek/ },
  { id: 5, name: '阿里巴巴', icon: 'Qwen.Color', pattern: /qwen|qwq|qvq|wanx|^wan2/ },
  { id: 6, name: 'Moonshot', icon: 'Moonshot', pattern: /moonshot|kimi/ },
  { id: 7, name: '智谱', icon: 'Zhipu.Color', pattern: /glm|cogview|cogvideo/ },
  { id: 8, name: 'MiniMax', icon: 'Minimax.Color', pattern: /abab|minimax/ },
  { id: 9, name: '百度', icon: 'Wenxin.Color', pattern: /ernie/ },
  { id: 10, name: '腾讯', icon: 'Hunyuan.Color', pattern: /hunyuan/ },
  { id: 11, name: '字节跳动', icon: 'Doubao.Color', pattern: /doubao|seedream|seedance|seededit/ },
  { id: 12, name: 'xAI', icon: 'XAI', pattern: /grok/ },
  { id: 13, name: 'Mistral', icon: 'Mistral.Color', pattern: /mistral|mixtral|codestral|pixtral|magistral|ministral/ },
  { id: 14, name: 'Meta', icon: 'Meta.Color', pattern: /llama/ },
  { id: 15, name: 'Cohere', icon: 'Cohere.Color', pattern: /^command|^embed-|^rerank-(english|multilingual)|c4ai/ },
  { id: 16, name: 'Jina', icon: 'Jina', pattern: /jina/ },
  { id: 17, name: '零一万物', icon: 'Yi.Color', pattern: /^yi-/ },
  { id: 18, name: '讯飞', icon: 'Spark.Color', pattern: /spark/ },
  { id: 19, name: 'Midjourney', icon: 'Midjourney', pattern: /^mj_|midjourney/ },
  { id: 20, name: 'Suno', icon: 'Suno', pattern: /suno|chirp/ },
  { id: 21, name: '快手', icon: 'Kling.Color', pattern: /kling/ },
  { id: 22, name: 'Vidu', icon: 'Vidu', pattern: /vidu/ },
];

export function vendorOf(model: string): PricingVendor | undefined {
  const name = model.toLowerCase();
  const vendor = VENDORS.find(({ pattern }) => pattern.test(name));
  return vendor && { id: vendor.id, name: vendor.name, icon: vendor.icon };
}

/** Kinds of output first: a model that makes images, sound or vectors is not also tagged for chat abilities. */
const OUTPUT_TAGS: readonly [string, RegExp][] = [
  ['embedding', /embed/],
  ['rerank', /rerank/],
  ['image', /dall-e|gpt-image|imagen|flux|cogview|seedream|seededit|wanx|stable-diffusion|sdxl|^mj_|midjourney|-image/],
  ['video', /sora|^veo|kling|vidu|cogvideo|seedance|video/],
  ['audio', /whisper|tts|audio|realtime|speech|transcribe|suno|chirp/],
];
const CHAT_TAGS: readonly [string, RegExp][] = [
  ['reasoning', /^o[1-9](-|$)|reason|thinking|-r1|qwq|qvq|gpt-5|grok-[3-9]|claude-3-7|claude-(opus|sonnet)-4|(opus|sonnet)-4|gemini-(2\.5|[3-9])|glm-4\.[5-9]/],
  ['vision', /vision|-vl|4o|gpt-4\.1|gpt-5|^o[3-9](-|$)|gemini|claude-3|claude-(opus|sonnet|haiku)-4|(opus|sonnet|haiku)-4|qvq|pixtral|llava|glm-4v|grok-4/],
];

/** Capability tags as new-api's `tags` field: comma-separated, empty when nothing is known. */
export function tagsOf(model: string): string {
  const name = model.toLowerCase();
  const output = OUTPUT_TAGS.filter(([, pattern]) => pattern.test(name)).map(([tag]) => tag);
  if (output.length > 0) return output.join(',');
  return CHAT_TAGS.filter(([, pattern]) => pattern.test(name))
    .map(([tag]) => tag)
    .join(',');
}

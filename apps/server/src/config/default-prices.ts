/**
 * The default price table. A model ratio of 1 means $2 per million prompt tokens ($0.002 per
 * 1K, the gpt-3.5-era unit one-api introduced); the completion ratio multiplies completion
 * tokens; a model price is a fixed USD charge per call and wins over ratios.
 * Figures are the providers' list prices divided into that unit.
 */
export const DEFAULT_MODEL_RATIO: Record<string, number> = {
  // OpenAI
  'gpt-3.5-turbo': 0.25,
  'gpt-3.5-turbo-0125': 0.25,
  'gpt-3.5-turbo-instruct': 0.75,
  'gpt-4': 15,
  'gpt-4-turbo': 5,
  'gpt-4o': 1.25,
  'gpt-4o-2024-08-06': 1.25,
  'gpt-4o-2024-11-20': 1.25,
  'gpt-4o-mini': 0.075,
  'gpt-4.1': 1,
  'gpt-4.1-mini': 0.2,
  'gpt-4.1-nano': 0.05,
  'gpt-5': 0.625,
  'gpt-5-mini': 0.125,
  'gpt-5-nano': 0.025,
  o1: 7.5,
  'o1-mini': 0.55,
  o3: 1,
  'o3-mini': 0.55,
  'o4-mini': 0.55,
  'text-embedding-3-small': 0.01,
  'text-embedding-3-large': 0.065,
  'text-embedding-ada-002': 0.05,
  'omni-moderation-latest': 0.1,
  'text-moderation-latest': 0.1,
  'whisper-1': 15,
  'tts-1': 7.5,
  'tts-1-hd': 15,
  'gpt-4o-mini-tts': 0.3,
  // Anthropic
  'claude-3-haiku-20240307': 0.125,
  'claude-3-5-haiku-20241022': 0.4,
  'claude-3-5-sonnet-20241022': 1.5,
  'claude-3-7-sonnet-20250219': 1.5,
  'claude-sonnet-4-20250514': 1.5,
  'claude-sonnet-4-5-20250929': 1.5,
  'claude-haiku-4-5-20251001': 0.5,
  'claude-opus-4-20250514': 7.5,
  'claude-opus-4-1-20250805': 7.5,
  // Google
  'gemini-1.5-pro': 0.625,
  'gemini-1.5-flash': 0.0375,
  'gemini-2.0-flash': 0.05,
  'gemini-2.5-pro': 0.625,
  'gemini-2.5-flash': 0.15,
  'gemini-2.5-flash-lite': 0.05,
  'text-embedding-004': 0.01,
  // DeepSeek
  'deepseek-chat': 0.14,
  'deepseek-reasoner': 0.14,
  // Moonshot
  'moonshot-v1-8k': 1,
  'moonshot-v1-32k': 2,
  'moonshot-v1-128k': 5,
  'kimi-k2-0905-preview': 0.3,
  // Mistral
  'mistral-large-latest': 1,
  'mistral-small-latest': 0.05,
  'codestral-latest': 0.15,
  // xAI
  'grok-3': 1.5,
  'grok-3-mini': 0.15,
  'grok-4': 1.5,
};

export const DEFAULT_COMPLETION_RATIO: Record<string, number> = {
  'gpt-3.5-turbo': 3,
  'gpt-3.5-turbo-0125': 3,
  'gpt-3.5-turbo-instruct': 1.3333,
  'gpt-4': 2,
  'gpt-4-turbo': 3,
  'gpt-4o': 4,
  'gpt-4o-2024-08-06': 4,
  'gpt-4o-2024-11-20': 4,
  'gpt-4o-mini': 4,
  'gpt-4.1': 4,
  'gpt-4.1-mini': 4,
  'gpt-4.1-nano': 4,
  'gpt-5': 8,
  'gpt-5-mini': 8,
  'gpt-5-nano': 8,
  o1: 4,
  'o1-mini': 4,
  o3: 4,
  'o3-mini': 4,
  'o4-mini': 4,
  'gpt-4o-mini-tts': 40,
  'claude-3-haiku-20240307': 5,
  'claude-3-5-haiku-20241022': 5,
  'claude-3-5-sonnet-20241022': 5,
  'claude-3-7-sonnet-20250219': 5,
  'claude-sonnet-4-20250514': 5,
  'claude-sonnet-4-5-20250929': 5,
  'claude-haiku-4-5-20251001': 5,
  'claude-opus-4-20250514': 5,
  'claude-opus-4-1-20250805': 5,
  'gemini-1.5-pro': 4,
  'gemini-1.5-flash': 4,
  'gemini-2.0-flash': 4,
  'gemini-2.5-pro': 8,
  'gemini-2.5-flash': 8.3333,
  'gemini-2.5-flash-lite': 4,
  'deepseek-chat': 1.5,
  'deepseek-reasoner': 1.5,
  'kimi-k2-0905-preview': 4.1667,
  'mistral-large-latest': 3,
  'mistral-small-latest': 3,
  'codestral-latest': 3,
  'grok-3': 5,
  'grok-3-mini': 1.6667,
  'grok-4': 5,
};

/**
 * What a prompt token the upstream served from its prompt cache costs, relative to the model
 * ratio: new-api's default cache ratios (setting/ratio_setting/cache_ratio.go) for the models this
 * table prices. A model without one is billed at 1 (no discount), as in new-api.
 */
export const DEFAULT_CACHE_RATIO: Record<string, number> = {
  'gpt-4': 0.5,
  'gpt-4o': 0.5,
  'gpt-4o-2024-08-06': 0.5,
  'gpt-4o-2024-11-20': 0.5,
  'gpt-4o-mini': 0.5,
  'gpt-4.1': 0.25,
  'gpt-4.1-mini': 0.25,
  'gpt-4.1-nano': 0.25,
  'gpt-5': 0.1,
  'gpt-5-mini': 0.1,
  'gpt-5-nano': 0.1,
  o1: 0.5,
  'o1-mini': 0.5,
  'o3-mini': 0.5,
  'claude-3-haiku-20240307': 0.1,
  'claude-3-5-haiku-20241022': 0.1,
  'claude-3-5-sonnet-20241022': 0.1,
  'claude-3-7-sonnet-20250219': 0.1,
  'claude-sonnet-4-20250514': 0.1,
  'claude-sonnet-4-5-20250929': 0.1,
  'claude-haiku-4-5-20251001': 0.1,
  'claude-opus-4-20250514': 0.1,
  'claude-opus-4-1-20250805': 0.1,
  'deepseek-chat': 0.25,
  'deepseek-reasoner': 0.25,
};

/**
 * What a prompt token written into the upstream's prompt cache costs, relative to the model ratio
 * (CreateCacheRatio): new-api's cache-creation ratios for the models this table knows (Anthropic
 * bills a 5-minute cache write at 1.25 × the input price). A model not listed is billed at
 * CREATE_CACHE_RATIO_FALLBACK (new-api's GetCreateCacheRatio).
 */
export const DEFAULT_CREATE_CACHE_RATIO: Record<string, number> = {
  'claude-3-haiku-20240307': 1.25,
  'claude-3-5-haiku-20241022': 1.25,
  'claude-3-5-sonnet-20241022': 1.25,
  'claude-3-7-sonnet-20250219': 1.25,
  'claude-sonnet-4-20250514': 1.25,
  'claude-sonnet-4-5-20250929': 1.25,
  'claude-haiku-4-5-20251001': 1.25,
  'claude-opus-4-20250514': 1.25,
  'claude-opus-4-1-20250805': 1.25,
};

/** new-api's cache-creation ratio for a model CreateCacheRatio does not list. */
export const CREATE_CACHE_RATIO_FALLBACK = 1.25;

/** Fixed USD per call. */
export const DEFAULT_MODEL_PRICE: Record<string, number> = {
  'dall-e-2': 0.02,
  'dall-e-3': 0.04,
  'gpt-image-1': 0.04,
  mj_imagine: 0.1,
  mj_variation: 0.1,
  mj_upscale: 0.05,
  // new-api's other Midjourney defaults (INPAINT and CUSTOM_ZOOM are priced through mj_modal).
  mj_reroll: 0.1,
  mj_blend: 0.1,
  mj_modal: 0.1,
  mj_zoom: 0.1,
  mj_shorten: 0.1,
  mj_high_variation: 0.1,
  mj_low_variation: 0.1,
  mj_pan: 0.1,
  mj_inpaint: 0,
  mj_custom_zoom: 0,
  mj_describe: 0.05,
  mj_upload: 0.05,
  swap_face: 0.05,
  suno_music: 0.1,
  suno_lyrics: 0.01,
};

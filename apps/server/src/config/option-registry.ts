import { modelRequestRateLimitGroupSchema, rateLimitMapSchema } from '@modelgate/contract';
import { z } from 'zod';
import { DEFAULT_CACHE_RATIO, DEFAULT_COMPLETION_RATIO, DEFAULT_CREATE_CACHE_RATIO, DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO } from './default-prices.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from './default-output-bounds.js';
import { DEFAULT_AUDIO_COMPLETION_RATIO, DEFAULT_AUDIO_RATIO } from './default-audio-ratios.js';

/**
 * Every option key the console can read or write (spec 01 §3), with its kind and default.
 * Values are stored as strings in the options table, as new-api stores them.
 */
export type OptionKind = 'int' | 'float' | 'bool' | 'string' | 'json';

export interface OptionDefinition {
  kind: OptionKind;
  default: string;
  /** Never returned by GET /api/option/. */
  secret?: boolean;
  /** Strip trailing slashes on write (addresses). */
  url?: boolean;
  /** Only empty or an http:// / https:// address (addresses the server calls). */
  httpOnly?: boolean;
  /** Allowed values for enumerated strings. */
  oneOf?: readonly string[];
  /** Minimum for numbers. */
  min?: number;
  /** Maximum for numbers. */
  max?: number;
  /**
   * For JSON options: what the value must be shaped like. int-map: non-negative whole numbers;
   * header-map: model → {header name: [values]}; string-list: an array of strings;
   * responses-policy: new-api's ChatCompletionsToResponsesPolicy (responsesPolicySchema);
   * rate-limit-map: name → {rpm, tpm, rpd, concurrency}; request-limit-group: new-api's
   * group → [count, success count].
   */
  jsonShape?:
    | 'object'
    | 'array'
    | 'number-map'
    | 'string-map'
    | 'int-map'
    | 'header-map'
    | 'string-list'
    | 'responses-policy'
    | 'rate-limit-map'
    | 'request-limit-group';
  /** For string-map options: the values an entry may take ('' too: it falls back to "default"). */
  mapValues?: readonly string[];
  /** For string-map options: what every value must look like (it goes into an upstream path). */
  mapValuePattern?: RegExp;
}

/** An API version as it appears in a provider's path: v1, v1beta, v1alpha, v1beta1. */
const API_VERSION = /^v\d+[a-z0-9]*$/;

/** The thresholds Gemini's safetySettings take (new-api's validGeminiSafetySettings). */
export const GEMINI_SAFETY_THRESHOLDS = [
  'OFF',
  'BLOCK_NONE',
  'BLOCK_ONLY_HIGH',
  'BLOCK_MEDIUM_AND_ABOVE',
  'BLOCK_LOW_AND_ABOVE',
  'HARM_BLOCK_THRESHOLD_UNSPECIFIED',
] as const;

/** new-api's gemini.supported_imagine_models: the models asked for image output as well as text. */
const GEMINI_IMAGE_MODELS = [
  'gemini-2.0-flash-exp-image-generation',
  'gemini-2.0-flash-exp',
  'gemini-3-pro-image-preview',
  'gemini-3-pro-image',
  'gemini-2.5-flash-image',
  'gemini-3.1-flash-image',
  'gemini-3.1-flash-image-preview',
];

// Each helper keeps its literal `kind` so the typed getters below accept only keys of that kind.
const int = (value: number, min?: number) => ({ kind: 'int' as const, default: String(value), min });
const float = (value: number, min?: number, max?: number) => ({ kind: 'float' as const, default: String(value), min, max });
const bool = (value: boolean) => ({ kind: 'bool' as const, default: String(value) });
const str = (value = '', extra: Partial<Omit<OptionDefinition, 'kind'>> = {}) => ({ kind: 'string' as const, default: value, ...extra });
const secret = () => ({ kind: 'string' as const, default: '', secret: true });
const url = () => ({ kind: 'string' as const, default: '', url: true });
const httpUrl = () => ({ kind: 'string' as const, default: '', url: true, httpOnly: true });
const json = (value: unknown, jsonShape: OptionDefinition['jsonShape']) => ({
  kind: 'json' as const,
  default: JSON.stringify(value, null, 2),
  jsonShape,
});

export const OPTION_DEFINITIONS = {
  // Numbers
  QuotaForNewUser: int(0, 0),
  QuotaForInviter: int(0, 0),
  QuotaForInvitee: int(0, 0),
  PreConsumedQuota: int(500, 0),
  // A call its payer cannot pay for at its full output bound is sent upstream with a lower output
  // limit, what the balance pays for, when that is at least this many tokens; else it waits, then
  // is refused (relay/completion-cap.ts).
  MinCappedOutputTokens: int(128, 1),
  // Responses API turns answered by conversion (a channel without OpenAI's Responses API) are kept
  // this many hours for previous_response_id (domain/responses/response-store.ts); 0 keeps none.
  ResponsesRetentionHours: int(24, 0),
  // Audit rows older than this many days are deleted by an hourly job (domain/audit/); 0 keeps them all.
  AuditLogRetentionDays: int(180, 0),
  // Usage logs older than this many days are deleted by the master's hourly job (domain/logs/log-retention.ts:
  // whole month partitions dropped on PostgreSQL, short batches elsewhere); 0 (the default) keeps them all.
  LogRetentionDays: int(0, 0),
  QuotaRemindThreshold: int(1000, 0),
  StreamCacheQueueLength: int(0, 0),
  QuotaPerUnit: float(500000, 0.000001),
  RetryTimes: int(0, 0),
  ChannelDisableThreshold: float(5, 0),
  // Circuit breakers (relay/channel-breaker.ts): failures in a row within the window open a
  // channel's (or key's) breaker for the cool-down; a threshold of 0 turns them off.
  ChannelBreakerFailureThreshold: int(5, 0),
  ChannelBreakerWindowSeconds: float(60, 0),
  ChannelBreakerCooldownSeconds: float(30, 0),
  // Channel affinity (relay/channel-affinity.ts): an agent session's calls stay on the channel
  // and key that last served it while it is healthy; pins expire TTLSeconds after the session's
  // last call, at most MaxEntries of them in a node's memory (in Redis when it is set). Header:
  // header names (comma-separated) read as the session key before the ones agent CLIs send.
  ChannelAffinityEnabled: bool(true),
  ChannelAffinityTTLSeconds: int(3600, 1),
  ChannelAffinityMaxEntries: int(100000, 1),
  ChannelAffinityHeader: str(''),
  DataExportInterval: int(5, 1),
  // How long a re-verification (POST /api/verify: a 2FA code, a passkey or the password) lets a
  // session read a channel's key or change its password, 2FA or passkeys (new-api: 5 minutes).
  SecureVerificationWindowSeconds: int(300, 30),
  // Per-user request limits on the relay (relay/rate-limits/, new-api's
  // middleware/model-rate-limit.go): within DurationMinutes, at most Count requests (failed ones
  // included) and at most SuccessCount successful ones; 0 turns either limit (or the window) off.
  ModelRequestRateLimitDurationMinutes: int(1, 0),
  ModelRequestRateLimitCount: int(0, 0),
  ModelRequestRateLimitSuccessCount: int(1000, 0),
  Price: float(7.3, 0),
  MinTopUp: int(1, 0),

  // Text and JSON
  DataExportDefaultTime: str('hour', { oneOf: ['hour', 'day', 'week'] }),
  ModelPrice: json(DEFAULT_MODEL_PRICE, 'number-map'),
  ModelRatio: json(DEFAULT_MODEL_RATIO, 'number-map'),
  CompletionRatio: json(DEFAULT_COMPLETION_RATIO, 'number-map'),
  CacheRatio: json(DEFAULT_CACHE_RATIO, 'number-map'),
  // What a prompt token written into the upstream's cache costs relative to the model ratio
  // (new-api's CreateCacheRatio; 1.25 for a model it does not list).
  CreateCacheRatio: json(DEFAULT_CREATE_CACHE_RATIO, 'number-map'),
  // What an audio prompt token costs relative to the model ratio, and an audio output token
  // relative to that (new-api's AudioRatio, AudioCompletionRatio; 1 for a model not listed): the
  // Realtime API's usage is billed by them (relay/realtime/realtime-pricing.ts).
  AudioRatio: json(DEFAULT_AUDIO_RATIO, 'number-map'),
  AudioCompletionRatio: json(DEFAULT_AUDIO_COMPLETION_RATIO, 'number-map'),
  GroupRatio: json({ default: 1, vip: 1, svip: 1 }, 'number-map'),
  UserUsableGroups: json({ default: '默认分组', vip: 'vip分组' }, 'string-map'),
  TopupGroupRatio: json({ default: 1, vip: 1, svip: 1 }, 'number-map'),
  Chats: json([], 'array'),
  // Rate limits (relay/rate-limits/): group → {rpm, tpm, rpd, concurrency} for each user's calls in
  // that group; model → the same for each user's calls of that model; new-api's
  // ModelRequestRateLimitGroup, group → [count, success count] replacing ModelRequestRateLimitCount
  // and ModelRequestRateLimitSuccessCount for that group. Empty: no limit.
  GroupRateLimits: json({}, 'rate-limit-map'),
  ModelRateLimits: json({}, 'rate-limit-map'),
  ModelRequestRateLimitGroup: json({}, 'request-limit-group'),
  SensitiveWords: str(''),
  // One phrase a line: an upstream error whose message holds one (ignoring case) disables the
  // channel under AutomaticDisableChannelEnabled (relay/channel-health.ts). new-api's list.
  AutomaticDisableKeywords: str(
    [
      'Your credit balance is too low',
      'This organization has been disabled.',
      'You exceeded your current quota',
      'Permission denied',
      'The security token included in the request is invalid',
      'Operation not allowed',
      'Your account is not authorized',
    ].join('\n'),
  ),
  // The documentation address new-api's console links in its header and home page (/api/status docs_link).
  'general_setting.docs_link': url(),
  Notice: str(''),
  SystemName: str('modelgate'),
  Logo: str(''),
  HomePageContent: str(''),
  About: str(''),
  Footer: str(''),
  TopUpLink: str(''),
  ChatLink: str(''),
  ChatLink2: str(''),
  ServerAddress: url(),
  WorkerUrl: url(),
  WorkerValidKey: secret(),
  PayAddress: url(),
  CustomCallbackAddress: url(),
  EpayId: str(''),
  EpayKey: secret(),

  // Model settings under new-api's `claude.*` and `gemini.*` keys (setting/model_setting), read by
  // the relay through domain/options/model-settings.ts. Headers: model → {header: [values]},
  // empty by default as in new-api. Default max tokens: model → max_tokens for a Claude request
  // that names none, "default" for the others. The thinking adapters turn a `-thinking` model
  // suffix into a thinking budget of max_tokens × the percentage.
  'claude.model_headers_settings': json({}, 'header-map'),
  'claude.default_max_tokens': json({ default: 8192 }, 'int-map'),
  // The most output tokens a model returns to a call that sets no limit (model or name prefix →
  // tokens, "default" for the rest): what such a call holds from its payer's balance.
  ModelMaxOutputTokens: json(DEFAULT_MAX_OUTPUT_TOKENS, 'int-map'),
  'claude.thinking_adapter_enabled': bool(true),
  'claude.thinking_adapter_budget_tokens_percentage': float(0.8, 0.1, 1),
  // Safety: category → threshold, "default" for the categories not listed (OFF as in new-api).
  // Versions: model → API version in the upstream path, "default" for the others.
  'gemini.safety_settings': { ...json({ default: 'OFF' }, 'string-map'), mapValues: GEMINI_SAFETY_THRESHOLDS },
  'gemini.version_settings': { ...json({ default: 'v1beta', 'gemini-1.0-pro': 'v1' }, 'string-map'), mapValuePattern: API_VERSION },
  'gemini.supported_imagine_models': json(GEMINI_IMAGE_MODELS, 'string-list'),
  'gemini.thinking_adapter_enabled': bool(false),
  'gemini.thinking_adapter_budget_tokens_percentage': float(0.6, 0.002, 1),
  // new-api's global.chat_completions_to_responses_policy: chat calls of the models matching one
  // of model_patterns (regular expressions), on the channels named by id or type (or all), go
  // upstream as Responses API calls and come back as chat. Off by default.
  'global.chat_completions_to_responses_policy': json(
    { enabled: false, all_channels: false, channel_ids: [], channel_types: [], model_patterns: [] },
    'responses-policy',
  ),

  // Login and registration
  PasswordLoginEnabled: bool(true),
  PasswordRegisterEnabled: bool(true),
  RegisterEnabled: bool(true),
  EmailVerificationEnabled: bool(false),
  EmailDomainRestrictionEnabled: bool(false),
  EmailAliasRestrictionEnabled: bool(false),
  EmailDomainWhitelist: str('gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com'),
  GitHubOAuthEnabled: bool(false),
  GitHubClientId: str(''),
  GitHubClientSecret: secret(),
  LinuxDOOAuthEnabled: bool(false),
  LinuxDOClientId: str(''),
  LinuxDOClientSecret: secret(),
  WeChatAuthEnabled: bool(false),
  WeChatServerAddress: url(),
  WeChatServerToken: secret(),
  WeChatAccountQRCodeImageURL: str(''),
  TelegramOAuthEnabled: bool(false),
  TelegramBotToken: secret(),
  TelegramBotName: str(''),
  TurnstileCheckEnabled: bool(false),
  TurnstileSiteKey: str(''),
  TurnstileSecretKey: secret(),
  // OpenID Connect sign-in under new-api's `oidc.*` keys (domain/users/oidc-client.ts); the
  // console's system tab fills the endpoints from the well-known discovery document.
  'oidc.enabled': bool(false),
  'oidc.client_id': str(''),
  'oidc.client_secret': secret(),
  'oidc.well_known': httpUrl(),
  'oidc.authorization_endpoint': httpUrl(),
  'oidc.token_endpoint': httpUrl(),
  'oidc.user_info_endpoint': httpUrl(),
  // Passkeys (WebAuthn) under new-api's `passkey.*` keys (domain/passkeys/relying-party.ts): the
  // relying party's id and origins default to ServerAddress, else to the address the console was
  // reached at; an http:// origin other than localhost needs allow_insecure_origin.
  'passkey.enabled': bool(true),
  'passkey.rp_display_name': str(''),
  'passkey.rp_id': str(''),
  'passkey.origins': str(''),
  'passkey.allow_insecure_origin': bool(false),
  'passkey.user_verification': str('preferred', { oneOf: ['required', 'preferred', 'discouraged'] }),
  'passkey.attachment_preference': str('', { oneOf: ['', 'platform', 'cross-platform'] }),

  // SMTP
  SMTPServer: str(''),
  SMTPPort: int(587, 1),
  SMTPAccount: str(''),
  SMTPFrom: str(''),
  SMTPToken: secret(),
  SMTPSSLEnabled: bool(false),

  // Switches
  AutomaticDisableChannelEnabled: bool(false),
  AutomaticEnableChannelEnabled: bool(false),
  LogConsumeEnabled: bool(true),
  DisplayInCurrencyEnabled: bool(true),
  DisplayTokenStatEnabled: bool(true),
  CheckSensitiveEnabled: bool(false),
  CheckSensitiveOnPromptEnabled: bool(false),
  CheckSensitiveOnCompletionEnabled: bool(false),
  StopOnSensitiveEnabled: bool(false),
  DrawingEnabled: bool(true),
  TaskEnabled: bool(true), // on by default, as in new-api
  MjNotifyEnabled: bool(false),
  MjAccountFilterEnabled: bool(false),
  MjModeClearEnabled: bool(false),
  MjForwardUrlEnabled: bool(false),
  MjActionCheckSuccessEnabled: bool(true),
  DataExportEnabled: bool(true),
  DefaultCollapseSidebar: bool(false),
  // A console flag only, as in new-api: its home page then shows the version as the project link
  // (/api/status demo_site_enabled); the server changes nothing else.
  DemoSiteEnabled: bool(false),
  // new-api's self-use mode: a model with neither a ratio nor a price is served at ratio 37.5
  // instead of being refused (domain/billing/pricing.ts).
  SelfUseModeEnabled: bool(false),
  ModelRequestRateLimitEnabled: bool(false),
} as const satisfies Record<string, OptionDefinition>;

export type OptionKey = keyof typeof OPTION_DEFINITIONS;
type KeysOfKind<K extends OptionKind> = {
  [Key in OptionKey]: (typeof OPTION_DEFINITIONS)[Key]['kind'] extends K ? Key : never;
}[OptionKey];
export type NumberOptionKey = KeysOfKind<'int' | 'float'>;
export type BoolOptionKey = KeysOfKind<'bool'>;
export type StringOptionKey = KeysOfKind<'string'>;
export type JsonOptionKey = KeysOfKind<'json'>;

export const isOptionKey = (key: string): key is OptionKey => Object.hasOwn(OPTION_DEFINITIONS, key);

const definitionOf = (key: OptionKey): OptionDefinition => OPTION_DEFINITIONS[key] as OptionDefinition;

/** A secret option: never listed by GET /api/option/, and sealed in the options table (lib/secret-box.ts). */
export const isSecretOption = (key: OptionKey): boolean => definitionOf(key).secret === true;

/** The keys of the secret options. */
export const SECRET_OPTION_KEYS: readonly OptionKey[] = (Object.keys(OPTION_DEFINITIONS) as OptionKey[]).filter(isSecretOption);

export class OptionValidationError extends Error {}

/** What the console calls each JSON option, for spec 01 §5's "… 不是合法的 JSON 字符串". */
const JSON_OPTION_NAMES: Partial<Record<OptionKey, string>> = {
  GroupRatio: '分组倍率',
  UserUsableGroups: '用户可选分组',
  TopupGroupRatio: '充值分组倍率',
  ModelPrice: '模型固定价格',
  ModelRatio: '模型倍率',
  CompletionRatio: '补全倍率',
  CacheRatio: '缓存倍率',
  CreateCacheRatio: '缓存创建倍率',
  AudioRatio: '音频倍率',
  AudioCompletionRatio: '音频补全倍率',
  Chats: '聊天配置',
  'claude.model_headers_settings': 'Claude请求头覆盖',
  'claude.default_max_tokens': '缺省 MaxTokens',
  ModelMaxOutputTokens: '模型最大输出',
  'gemini.safety_settings': 'Gemini安全设置',
  'gemini.version_settings': 'Gemini版本设置',
  'gemini.supported_imagine_models': '支持的图像模型',
  'global.chat_completions_to_responses_policy': 'ChatCompletions→Responses 兼容策略',
  GroupRateLimits: '分组速率限制',
  ModelRateLimits: '模型速率限制',
  ModelRequestRateLimitGroup: '分组模型请求速率限制',
};

/**
 * Checks and normalises a value for `key`; throws OptionValidationError with a message the
 * console shows as is.
 */
export function normaliseOptionValue(key: string, raw: unknown): string {
  if (!isOptionKey(key)) throw new OptionValidationError(`未知的配置项：${key}`);
  const definition = definitionOf(key);
  if (raw === null || raw === undefined) throw new OptionValidationError(`${key} 的值不能为空`);
  if (typeof raw === 'object') throw new OptionValidationError(`${key} 的值必须是字符串、数字或布尔值`);
  let value = String(raw);
  switch (definition.kind) {
    case 'int': {
      value = value.trim();
      if (!/^-?\d+$/.test(value)) throw new OptionValidationError(`${key} 必须是整数`);
      if (definition.min !== undefined && Number(value) < definition.min) {
        throw new OptionValidationError(`${key} 不能小于 ${definition.min}`);
      }
      return String(Number(value));
    }
    case 'float': {
      value = value.trim();
      const number = Number(value);
      if (value === '' || !Number.isFinite(number)) throw new OptionValidationError(`${key} 必须是数字`);
      if (definition.min !== undefined && number < definition.min) {
        throw new OptionValidationError(`${key} 不能小于 ${definition.min}`);
      }
      if (definition.max !== undefined && number > definition.max) {
        throw new OptionValidationError(`${key} 不能大于 ${definition.max}`);
      }
      return String(number);
    }
    case 'bool': {
      if (value !== 'true' && value !== 'false') throw new OptionValidationError(`${key} 必须是 true 或 false`);
      return value;
    }
    case 'json': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw new OptionValidationError(`${JSON_OPTION_NAMES[key] ?? key}不是合法的 JSON 字符串`);
      }
      checkJsonShape(key, definition.jsonShape, parsed);
      if (definition.mapValues) checkMapValues(key, definition.mapValues, parsed as Record<string, string>);
      if (definition.mapValuePattern) {
        for (const [name, entry] of Object.entries(parsed as Record<string, string>)) {
          if (!definition.mapValuePattern.test(entry)) throw new OptionValidationError(`${key} 中 ${name} 的值 ${entry} 不是合法的版本号（如 v1、v1beta）`);
        }
      }
      return value;
    }
    case 'string': {
      if (definition.oneOf && !definition.oneOf.includes(value)) {
        throw new OptionValidationError(`${key} 只能是 ${definition.oneOf.join('、')} 之一`);
      }
      if (definition.httpOnly && value.trim() !== '' && !/^https?:\/\/[^\s/]+\S*$/i.test(value.trim())) {
        throw new OptionValidationError(`${key} 必须是以 http:// 或 https:// 开头的地址`);
      }
      return definition.url ? value.trim().replace(/\/+$/, '') : value;
    }
    default: {
      const unreachable: never = definition.kind;
      throw new OptionValidationError(`unsupported option kind ${String(unreachable)}`);
    }
  }
}

function checkJsonShape(key: string, shape: OptionDefinition['jsonShape'], parsed: unknown): void {
  const isPlainObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  if (shape === 'array' && !Array.isArray(parsed)) throw new OptionValidationError(`${key} 必须是 JSON 数组`);
  if (shape === 'string-list' && !(Array.isArray(parsed) && parsed.every((item) => typeof item === 'string'))) {
    throw new OptionValidationError(`${key} 必须是字符串组成的 JSON 数组`);
  }
  if (shape !== undefined && shape !== 'array' && shape !== 'string-list' && !isPlainObject) {
    throw new OptionValidationError(`${key} 必须是 JSON 对象`);
  }
  if (shape === 'responses-policy') {
    const checked = responsesPolicySchema.safeParse(parsed);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new OptionValidationError(`${key} 中 ${issue?.path.join('.') || '值'} 不合法：${issue?.message ?? ''}`);
    }
  }
  if (shape === 'rate-limit-map' || shape === 'request-limit-group') {
    const checked = (shape === 'rate-limit-map' ? rateLimitMapSchema : modelRequestRateLimitGroupSchema).safeParse(parsed);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new OptionValidationError(`${JSON_OPTION_NAMES[key as OptionKey] ?? key} 中 ${issue?.path.join('.') || '值'} 不合法：${issue?.message ?? ''}`);
    }
  }
  if (shape === 'number-map') {
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new OptionValidationError(`${key} 中 ${name} 的值必须是非负数字`);
      }
    }
  }
  if (shape === 'string-map') {
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof value !== 'string') throw new OptionValidationError(`${key} 中 ${name} 的值必须是字符串`);
    }
  }
  if (shape === 'int-map') {
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw new OptionValidationError(`${key} 中 ${name} 的值必须是非负整数`);
      }
    }
  }
  if (shape === 'header-map') {
    for (const [model, headers] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
        throw new OptionValidationError(`${key} 中 ${model} 的值必须是 {"请求头": ["值", ...]} 形式的 JSON 对象`);
      }
      for (const [header, values] of Object.entries(headers as Record<string, unknown>)) {
        if (!HEADER_NAME.test(header)) throw new OptionValidationError(`${key} 中 ${model} 的请求头名称 ${header} 不合法`);
        if (!Array.isArray(values) || !values.every((item) => typeof item === 'string' && !/[\r\n\0]/.test(item))) {
          throw new OptionValidationError(`${key} 中 ${model} 的 ${header} 必须是字符串数组（不含换行）`);
        }
      }
    }
  }
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const isRegExp = (pattern: string): boolean => {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
};

/** new-api's ChatCompletionsToResponsesPolicy: which chat calls go upstream as Responses API calls. */
export const responsesPolicySchema = z.object({
  enabled: z.boolean().optional(),
  all_channels: z.boolean().optional(),
  channel_ids: z.array(z.number().int().positive()).optional(),
  channel_types: z.array(z.number().int().nonnegative()).optional(),
  model_patterns: z.array(z.string().refine(isRegExp, '不是合法的正则表达式 (not a valid regular expression)')).optional(),
});

export type ResponsesPolicy = z.infer<typeof responsesPolicySchema>;

function checkMapValues(key: string, allowed: readonly string[], map: Record<string, string>): void {
  for (const [name, value] of Object.entries(map)) {
    if (value !== '' && !allowed.includes(value)) {
      throw new OptionValidationError(`${key} 中 ${name} 的值 ${value} 不是可用的取值（${allowed.join('、')}）`);
    }
  }
}

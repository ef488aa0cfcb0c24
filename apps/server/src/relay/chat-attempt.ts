import type { ChatFormat, ChatRequest, OutboundContext } from '@modelgate/protocol';
import type { IncomingHttpHeaders } from 'node:http';
import type { OptionService } from '../domain/options/option-service.js';
import {
  chatViaResponses,
  claudeDefaultMaxTokens,
  claudeModelHeaders,
  claudeThinkingAdapter,
  geminiApiVersion,
  geminiSafetyThreshold,
  geminiThinkingAdapter,
} from '../domain/options/model-settings.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';
import type { FrameDecoder, NativeChatFormat, ProviderAdaptor, UpstreamRequest } from '../providers/provider-types.js';
import { codecFor } from './chat-codecs.js';
import { ChatTranslation } from './chat-translation.js';
import type { RelayInput } from './relay-input.js';

/** A chat call that crosses formats or goes to a provider with its own format. */
export interface ChatAttempt {
  request: UpstreamRequest | Promise<UpstreamRequest>;
  translation: ChatTranslation;
  /** The upstream's stream framing when it is not SSE (Bedrock). */
  frames: FrameDecoder | undefined;
  /** Fields the conversions dropped, for the log. */
  warnings: readonly string[];
}

/** The channel answers /v1/responses itself: its `responses_api` setting, else its type's adaptor. */
export function servesResponses(channel: RelayChannel, adaptor: ProviderAdaptor): boolean {
  if (adaptor.nativeChat !== undefined) return false;
  return channel.responsesApi === undefined ? adaptor.supports('responses') : channel.responsesApi === 'native';
}

/**
 * Calls the plain OpenAI pass-through cannot serve: a chat call in another client format, to a
 * native provider or going upstream as Responses (new-api's ChatCompletions→Responses policy, for
 * models an upstream offers only there); a Responses call to a channel without that API.
 */
export function needsChatAttempt(input: RelayInput, channel: RelayChannel, adaptor: ProviderAdaptor, upstreamModel: string, options: OptionService): boolean {
  const endpoint = input.spec.endpoint;
  if (endpoint === 'responses') return !servesResponses(channel, adaptor);
  if (endpoint !== 'chat') return false;
  return input.format !== 'openai' || adaptor.nativeChat !== undefined || chatViaResponses(options, channel.id, channel.type, upstreamModel);
}

/** The call can be converted for this channel: a Responses call and a channel that chats. */
export const convertible = (input: RelayInput, adaptor: ProviderAdaptor): boolean =>
  input.spec.endpoint === 'responses' && (adaptor.nativeChat !== undefined || adaptor.supports('chat'));

/** The headers of the client's own Anthropic request that an Anthropic upstream should see. */
const ANTHROPIC_CLIENT_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

const THINKING_SUFFIX = '-thinking';
const NO_THINKING_SUFFIX = '-nothinking';

/**
 * Plans one attempt of such a call on one channel: the request in the upstream's format (the
 * client's own bytes when it speaks that format and nothing changes) and how its answer travels back.
 */
export function planChatAttempt(
  input: RelayInput,
  channel: RelayChannel,
  adaptor: ProviderAdaptor,
  key: string,
  upstreamModel: string,
  options: OptionService,
  clientHeaders: IncomingHttpHeaders,
): ChatAttempt {
  const native = adaptor.nativeChat;
  const upstreamFormat: ChatFormat = native
    ? native.formatFor(upstreamModel)
    : input.format !== 'responses' && chatViaResponses(options, channel.id, channel.type, upstreamModel)
      ? 'responses'
      : 'openai';
  const translation = new ChatTranslation(
    input.format,
    upstreamFormat,
    input.model,
    input.format === 'openai' ? input.clientAskedUsage : true,
    input.jsonArrayStream === true,
  );
  const warnings = [...(input.warnings ?? [])];
  if (!native && upstreamFormat === 'responses') {
    // A chat model this channel serves through the Responses API.
    const context: OutboundContext = { model: upstreamModel, defaultMaxTokens: claudeDefaultMaxTokens(options, upstreamModel), outputCap: input.outputCap };
    const converted = codecFor('responses').requestFromCanonical!({ ...canonicalOf(input), stream: input.stream }, context);
    warnings.push(...converted.warnings);
    const json = converted.value;
    const request = adaptor.buildRequest({
      endpoint: 'responses',
      channel: channel.endpoint,
      key,
      model: input.model,
      upstreamModel,
      body: { kind: 'json', json, raw: JSON.stringify(json) },
      askStreamUsage: false,
    });
    return { request, translation, frames: undefined, warnings };
  }
  if (!native) {
    // A client of another format on an OpenAI-wire channel: the canonical request is OpenAI's.
    const canonical: ChatRequest = { ...canonicalOf(input), model: upstreamModel, stream: input.stream };
    if (input.stream) {
      if (adaptor.streamUsageOption) canonical.stream_options = { include_usage: true };
      else delete canonical.stream_options;
    }
    const raw = JSON.stringify(canonical);
    const request = adaptor.buildRequest({
      endpoint: 'chat',
      channel: channel.endpoint,
      key,
      model: input.model,
      upstreamModel,
      body: { kind: 'json', json: canonical, raw },
      askStreamUsage: false,
    });
    return { request, translation, frames: undefined, warnings };
  }

  const context = outboundContext(options, upstreamFormat as NativeChatFormat, upstreamModel, input);
  let body: Record<string, unknown>;
  let raw: string | undefined;
  if (input.format === upstreamFormat) {
    ({ body, raw } = passThroughBody(input, upstreamFormat as NativeChatFormat, context));
  } else {
    const converted = codecFor(upstreamFormat).requestFromCanonical!({ ...canonicalOf(input), stream: input.stream }, context);
    body = converted.value;
    warnings.push(...converted.warnings);
  }
  const headers: Record<string, string> = {};
  if (upstreamFormat === 'anthropic') {
    if (input.format === 'anthropic') {
      for (const name of ANTHROPIC_CLIENT_HEADERS) {
        const value = clientHeaders[name];
        if (typeof value === 'string' && value !== '') headers[name] = value;
      }
    }
    for (const [name, value] of Object.entries(claudeModelHeaders(options, context.model))) {
      // The model's beta flags join the client's own.
      headers[name] = headers[name] ? `${headers[name]},${value}` : value;
    }
  }
  const request = native.buildRequest({
    channel: channel.endpoint,
    key,
    upstreamModel: context.model,
    stream: input.stream,
    body,
    raw,
    clientHeaders: headers,
    apiVersion: geminiApiVersion(options, context.model),
  });
  return { request, translation, frames: native.frameDecoder?.(), warnings };
}

function canonicalOf(input: RelayInput): ChatRequest {
  return input.canonical ?? (input.body.kind === 'json' ? (input.body.json as ChatRequest) : { model: input.model, messages: [] });
}

/**
 * The options that shape a request for a native provider. new-api's thinking adapter: with
 * claude.thinking_adapter_enabled, `<model>-thinking` calls `<model>` with thinking on and a
 * budget of claude.thinking_adapter_budget_tokens_percentage of the output cap.
 */
function outboundContext(options: OptionService, format: NativeChatFormat, upstreamModel: string, input: RelayInput): OutboundContext {
  let model = upstreamModel;
  let thinkingBudgetTokens: number | undefined;
  if (format === 'anthropic') {
    const adapter = claudeThinkingAdapter(options);
    if (adapter.enabled && model.endsWith(THINKING_SUFFIX)) {
      model = model.slice(0, -THINKING_SUFFIX.length);
      const cap = input.maxTokens ?? claudeDefaultMaxTokens(options, model);
      thinkingBudgetTokens = Math.max(1024, Math.floor(cap * adapter.budgetPercentage));
      // A call capped at what its balance pays for thinks within half of the cap, or not at all.
      if (input.outputCap !== undefined) {
        const half = Math.floor(input.outputCap / 2);
        thinkingBudgetTokens = half < 1024 ? undefined : Math.min(thinkingBudgetTokens, half);
      }
    }
  } else if (format === 'gemini') {
    ({ model, thinkingBudgetTokens } = geminiThinkingSuffix(options, model, input.maxTokens));
  }
  return {
    model,
    defaultMaxTokens: claudeDefaultMaxTokens(options, model),
    thinkingBudgetTokens,
    outputCap: input.outputCap,
    safetyThreshold: format === 'gemini' ? geminiSafetyThreshold(options) : undefined,
  };
}

/**
 * new-api's Gemini thinking adapter, with gemini.thinking_adapter_enabled: `<model>-thinking-<n>`
 * thinks with a budget of n tokens, `<model>-thinking` with
 * gemini.thinking_adapter_budget_tokens_percentage of the output cap (the model decides when the
 * call sets none), `<model>-nothinking` not at all.
 */
function geminiThinkingSuffix(
  options: OptionService,
  model: string,
  maxTokens: number | undefined,
): { model: string; thinkingBudgetTokens: number | undefined } {
  const adapter = geminiThinkingAdapter(options);
  if (!adapter.enabled) return { model, thinkingBudgetTokens: undefined };
  const budgeted = /-thinking-(\d+)$/.exec(model);
  if (budgeted) return { model: model.slice(0, budgeted.index), thinkingBudgetTokens: Number(budgeted[1]) };
  if (model.endsWith(THINKING_SUFFIX)) {
    return {
      model: model.slice(0, -THINKING_SUFFIX.length),
      thinkingBudgetTokens: maxTokens === undefined ? -1 : Math.floor(maxTokens * adapter.budgetPercentage),
    };
  }
  if (model.endsWith(NO_THINKING_SUFFIX)) return { model: model.slice(0, -NO_THINKING_SUFFIX.length), thinkingBudgetTokens: 0 };
  return { model, thinkingBudgetTokens: undefined };
}

/**
 * The client's request for an upstream of its own format: its bytes as sent unless the model
 * changes, or Claude's required max_tokens or the thinking adapter's budget must be filled in.
 */
function passThroughBody(input: RelayInput, format: NativeChatFormat, context: OutboundContext): { body: Record<string, unknown>; raw: string | undefined } {
  const sent = input.body.kind === 'json' ? input.body.json : {};
  const raw = input.body.kind === 'json' ? input.body.raw : undefined;
  if (format !== 'anthropic') return { body: sent, raw };
  const changes: Record<string, unknown> = {};
  if (sent.model !== context.model) changes.model = context.model;
  if (typeof sent.max_tokens !== 'number') changes.max_tokens = context.defaultMaxTokens;
  if (context.thinkingBudgetTokens !== undefined && sent.thinking === undefined) {
    const cap = typeof sent.max_tokens === 'number' ? sent.max_tokens : context.defaultMaxTokens;
    changes.thinking = { type: 'enabled', budget_tokens: Math.min(context.thinkingBudgetTokens, Math.max(1024, cap - 1)) };
    if (cap <= context.thinkingBudgetTokens) changes.max_tokens = context.thinkingBudgetTokens + 1024;
  }
  if (Object.keys(changes).length === 0) return { body: sent, raw };
  return { body: { ...sent, ...changes }, raw: undefined };
}

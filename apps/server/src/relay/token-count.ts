import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OptionService } from '../domain/options/option-service.js';
import { claudeDefaultMaxTokens, claudeModelHeaders, geminiApiVersion } from '../domain/options/model-settings.js';
import type { RelayCache } from '../domain/relay-cache/relay-cache.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';
import { AppError } from '../errors/app-error.js';
import type { NativeChatFormat, UpstreamRequest } from '../providers/provider-types.js';
import type { UpstreamClient } from '../providers/upstream-client.js';
import type { ChannelBreakers } from './channel-breaker.js';
import { pickChannel } from './channel-selector.js';
import { codecFor } from './chat-codecs.js';
import type { ImageTokenCounter } from './image-tokens.js';
import type { RelayAuthenticator, RelayCaller } from './relay-auth.js';
import { ANTHROPIC_MESSAGES_ENDPOINT, GEMINI_GENERATE_ENDPOINT } from './relay-endpoints.js';
import { readRelayInput, type RelayInput } from './relay-input.js';
import { routeCall } from './relay-route.js';
import { RequestAbort } from './request-abort.js';
import { countPromptTokens } from './token-counter.js';
import { readUpstreamFailure } from './upstream-failure.js';
import { finishUpstreamHeaders } from './upstream-headers.js';

/** The response header that says who counted: `upstream` (the channel's own counter) or `local` (the relay's tokenizer). */
export const TOKEN_COUNT_HEADER = 'x-modelgate-token-count';

export type CountedBy = 'upstream' | 'local';

export interface PromptCount {
  inputTokens: number;
  countedBy: CountedBy;
}

export interface PromptCounterDeps {
  options: OptionService;
  cache: RelayCache;
  auth: RelayAuthenticator;
  upstream: UpstreamClient;
  breakers: ChannelBreakers;
  images: ImageTokenCounter;
}

/** The headers of the client's own Anthropic request that an Anthropic upstream should see (as chat-attempt.ts passes them). */
const ANTHROPIC_CLIENT_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why the upstream did not count; logged, and the relay counts instead. */
class NotCounted extends Error {}

/**
 * Anthropic's /v1/messages/count_tokens and Gemini's :countTokens. The caller's key and model are
 * checked as for a call, and the channel a call would take is chosen the same way (routeCall,
 * pickChannel, open breakers skipped); when that channel's provider has a count endpoint
 * (NativeChat.tokenCount) the prompt is counted there, converted to its format if the client
 * spoke another, else (OpenAI-wire channels, Cohere, a failed upstream count) by the relay's
 * tokenizer. Nothing is reserved or billed: counting is free, as at Anthropic and Google.
 */
export class PromptCounter {
  constructor(private readonly deps: PromptCounterDeps) {}

  async count(request: FastifyRequest, reply: FastifyReply, format: 'anthropic' | 'gemini', model?: string): Promise<PromptCount> {
    const authenticated = this.deps.auth.authenticate(request);
    const caller = authenticated instanceof Promise ? await authenticated : authenticated;
    const input = await readRelayInput(...this.inputOf(request.body, format, model));
    this.deps.auth.checkModel(caller, input.model);
    try {
      const inputTokens = await this.countUpstream(request, reply, caller, input);
      if (inputTokens !== undefined) return { inputTokens, countedBy: 'upstream' };
    } catch (error) {
      if (!(error instanceof NotCounted)) throw error;
      request.log.warn({ model: input.model, reason: error.message }, 'the upstream did not count the prompt: counted locally');
    }
    return { inputTokens: await countPromptTokens('chat', input.fields, this.deps.images), countedBy: 'local' };
  }

  /**
   * The arguments of readRelayInput. Gemini's countTokens takes either the request's own fields
   * or them wrapped in `generateContentRequest`: the wrapped ones are read.
   */
  private inputOf(body: unknown, format: 'anthropic' | 'gemini', model: string | undefined): Parameters<typeof readRelayInput> {
    if (format === 'anthropic') return [ANTHROPIC_MESSAGES_ENDPOINT, body];
    const sent = body as { kind: string; json: unknown; raw: string } | undefined;
    const target = { model: model ?? '', stream: false };
    if (sent?.kind === 'json' && isObject(sent.json) && isObject(sent.json.generateContentRequest)) {
      const inner = sent.json.generateContentRequest;
      return [GEMINI_GENERATE_ENDPOINT, { kind: 'json', json: inner, raw: JSON.stringify(inner) }, target];
    }
    return [GEMINI_GENERATE_ENDPOINT, body, target];
  }

  /**
   * The upstream's count; undefined when the routed channel has no count endpoint (nothing to
   * log); NotCounted when it has one that did not answer a count.
   */
  private async countUpstream(request: FastifyRequest, reply: FastifyReply, caller: RelayCaller, input: RelayInput): Promise<number | undefined> {
    const channel = await this.channelFor(caller, input);
    const native = channel?.adaptor?.nativeChat;
    const counter = native?.tokenCount;
    if (!channel || !native || !counter || channel.endpointProblem !== undefined) return undefined;
    const upstreamModel = channel.modelMapping?.get(input.model) ?? input.model;
    const format = native.formatFor(upstreamModel);
    const body = this.bodyFor(input, format, upstreamModel);
    if (!body) return undefined;
    const { breakers, options, upstream } = this.deps;
    const keyIndex = breakers.drawKey(channel);
    const key = channel.keys[keyIndex]!;
    try {
      let built;
      try {
        built = counter.request({
          channel: channel.endpoint,
          key,
          upstreamModel,
          stream: false,
          body,
          raw: undefined,
          clientHeaders: this.anthropicHeaders(request, input, format, upstreamModel),
          apiVersion: geminiApiVersion(options, upstreamModel),
        });
        if (built instanceof Promise) built = await built;
      } catch (error) {
        // The adaptor's own refusal (a malformed channel key, the token endpoint's answer) says what is wrong.
        if (error instanceof AppError) notCounted(channel)(error);
        throw error;
      }
      if (!built) return undefined;
      const sent: UpstreamRequest = built;
      finishUpstreamHeaders(sent, input.format === format ? input.format : undefined, request.headers, channel.headerOverride, key);
      const abort = new RequestAbort();
      const leave = () => abort.clientLeaves();
      reply.raw.once('close', leave);
      try {
        const answer = await upstream.send(sent, { signal: abort, stream: false, method: sent.method }).catch(notCounted(channel));
        if (answer.statusCode >= 300) {
          const failure = await readUpstreamFailure(answer, channel.allKeys);
          throw new NotCounted(`channel #${channel.id} answered HTTP ${failure.status}: ${failure.message}`);
        }
        const parsed: unknown = await answer.body.json().catch(notCounted(channel));
        const tokens = counter.parse(parsed);
        if (tokens === undefined) throw new NotCounted(`channel #${channel.id} answered no count`);
        return tokens;
      } finally {
        reply.raw.off('close', leave);
      }
    } finally {
      // A count is no verdict on the key: a probe it took may go with the next call.
      breakers.abandoned(channel, keyIndex);
    }
  }

  /** The channel a call would take now; undefined when none may (no route, every breaker open). */
  private async channelFor(caller: RelayCaller, input: RelayInput): Promise<RelayChannel | undefined> {
    let route;
    try {
      route = await routeCall(this.deps.cache, caller, input);
    } catch (error) {
      // A model nobody serves (or a pinned channel off) is still counted, locally, as before any routing.
      if (error instanceof AppError) return undefined;
      throw error;
    }
    const { breakers } = this.deps;
    const channel = route.pinned ?? pickChannel(route.tiers, 0, [], Math.random, breakers);
    return channel && breakers.blockedUntil(channel) === 0 ? channel : undefined;
  }

  /** The prompt in the upstream's format: the client's own fields, or converted from the canonical request. */
  private bodyFor(input: RelayInput, format: NativeChatFormat, upstreamModel: string): Record<string, unknown> | undefined {
    if (input.format === format) return input.body.kind === 'json' ? input.body.json : undefined;
    const codec = codecFor(format);
    if (!codec.requestFromCanonical || !input.canonical) return undefined;
    const context = { model: upstreamModel, defaultMaxTokens: claudeDefaultMaxTokens(this.deps.options, upstreamModel) };
    return codec.requestFromCanonical({ ...input.canonical, stream: false }, context).value;
  }

  /** anthropic-version and anthropic-beta from an Anthropic client, and the model's configured beta flags (claude.model_headers_settings). */
  private anthropicHeaders(request: FastifyRequest, input: RelayInput, format: NativeChatFormat, upstreamModel: string): Record<string, string> {
    const headers: Record<string, string> = {};
    if (format !== 'anthropic') return headers;
    if (input.format === 'anthropic') {
      for (const name of ANTHROPIC_CLIENT_HEADERS) {
        const value = request.headers[name];
        if (typeof value === 'string' && value !== '') headers[name] = value;
      }
    }
    for (const [name, value] of Object.entries(claudeModelHeaders(this.deps.options, upstreamModel))) {
      headers[name] = headers[name] ? `${headers[name]},${value}` : value;
    }
    return headers;
  }
}

/** A failure on the way to the upstream's count (its token, the connection, its answer's body) as NotCounted. */
const notCounted =
  (channel: RelayChannel) =>
  (error: unknown): never => {
    throw new NotCounted(`channel #${channel.id}: ${error instanceof Error ? error.message : String(error)}`);
  };

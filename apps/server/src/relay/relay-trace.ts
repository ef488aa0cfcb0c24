import type { TokenUsage } from '@modelgate/protocol';
import { type Attributes, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type { RelayReply, RelayRequest } from './relay-exchange.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';
import type { AppError } from '../errors/app-error.js';
import type { Tracing } from '../lib/telemetry/tracing.js';
import type { UpstreamRequest } from '../providers/provider-types.js';
import type { RelayCaller } from './relay-caller.js';
import type { RelayEndpointSpec } from './relay-endpoints.js';
import type { RelayInput } from './relay-input.js';

// The GenAI semantic conventions are still incubating: their names are copied here, as the
// semantic-conventions package advises, rather than imported from its unstable entry point.
const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';

/** gen_ai.operation.name by endpoint: the convention's values where it has one, the endpoint's name otherwise. */
const OPERATIONS: Record<RelayEndpointSpec['endpoint'], string> = {
  chat: 'chat',
  responses: 'chat',
  completions: 'text_completion',
  embeddings: 'embeddings',
  images: 'images',
  speech: 'speech',
  transcriptions: 'transcriptions',
  translations: 'translations',
  moderations: 'moderations',
  rerank: 'rerank',
};

/**
 * The relay's spans (README "Observability: traces"): one SERVER span per relayed call, one CLIENT
 * span under it per upstream attempt. Built only while traces are on: the relay holds
 * `RelayTracer | undefined` and every call site is one `?.`, so off costs a field read.
 * No key, prompt, answer or error message goes into a span (a message may quote the prompt).
 */
export class RelayTracer {
  constructor(private readonly tracing: Tracing) {}

  startCall(request: RelayRequest, spec: RelayEndpointSpec): CallTrace {
    const span = this.tracing.tracer.startSpan(
      `relay ${spec.path}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_HTTP_ROUTE]: spec.path,
          [ATTR_GEN_AI_OPERATION_NAME]: OPERATIONS[spec.endpoint],
          'modelgate.protocol': spec.format ?? 'openai',
        },
      },
      this.tracing.parentOf(request.headers),
    );
    return new CallTrace(this.tracing, span);
  }
}

/** One relayed call's span. */
export class CallTrace {
  private attempts = 0;
  private ended = false;

  constructor(
    private readonly tracing: Tracing,
    private readonly span: Span,
  ) {}

  /** Who calls: ids and group, never the key. */
  caller(caller: RelayCaller): void {
    this.span.setAttributes({ 'modelgate.token_id': caller.token.id, 'modelgate.user_id': caller.user.id, 'modelgate.group': caller.group });
  }

  /** What is asked: the model, whether streamed, the protocol the client speaks. */
  input(input: RelayInput): void {
    this.span.setAttributes({
      [ATTR_GEN_AI_REQUEST_MODEL]: input.model,
      [ATTR_GEN_AI_REQUEST_STREAM]: input.stream,
      'modelgate.protocol': input.format,
    });
  }

  /** The span of the next upstream attempt, a child of this one. */
  attempt(channel: RelayChannel): AttemptTrace {
    this.attempts += 1;
    const parent = trace.setSpan(ROOT_CONTEXT, this.span);
    const attributes: Attributes = {
      'modelgate.channel.id': channel.id,
      'modelgate.channel.name': channel.name,
      'modelgate.channel.type': channel.type,
      'modelgate.attempt': this.attempts,
    };
    return new AttemptTrace(this.tracing.tracer.startSpan(`relay attempt #${this.attempts}`, { kind: SpanKind.CLIENT, attributes }, parent));
  }

  /** The answer that reached the client: which channel and upstream model served it, and when its first byte came. */
  delivered(channel: RelayChannel, upstreamModel: string, firstResponseMs: number): void {
    this.span.setAttributes({
      [ATTR_GEN_AI_RESPONSE_MODEL]: upstreamModel,
      'modelgate.channel.id': channel.id,
      'modelgate.channel.name': channel.name,
      'modelgate.first_response_ms': firstResponseMs,
      'modelgate.attempts': this.attempts,
    });
  }

  /** What the call was billed: the tokens and the quota charged (as its consume log). */
  charged(usage: TokenUsage, quota: number): void {
    const attributes: Attributes = {
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.promptTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.completionTokens,
      'modelgate.quota': quota,
    };
    if (usage.cachedTokens) attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cachedTokens;
    this.span.setAttributes(attributes);
  }

  /** The client left before an answer. */
  clientGone(): void {
    this.span.setAttributes({ 'modelgate.client_gone': true, 'modelgate.attempts': this.attempts });
  }

  /** The call failed: its error kind (our code and OpenAI error type), status ERROR. */
  failed(error: AppError): void {
    this.span.setAttributes({ [ATTR_ERROR_TYPE]: error.code, 'modelgate.error.type': error.type, 'modelgate.attempts': this.attempts });
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
  }

  /** Ends the span once the answer is out: now, or when the response closes (a piped answer, an error about to be sent). */
  end(reply: RelayReply): void {
    const response = reply.raw;
    if (response.writableEnded || response.destroyed || response.closed) this.finish(reply);
    else response.once('close', () => this.finish(reply));
  }

  private finish(reply: RelayReply): void {
    if (this.ended) return;
    this.ended = true;
    this.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, reply.raw.statusCode);
    this.span.end();
  }
}

/** One upstream attempt's span. */
export class AttemptTrace {
  private readonly started = performance.now();

  constructor(private readonly span: Span) {}

  /** The request as sent: the upstream's host and port, the model it was asked for. */
  sending(request: UpstreamRequest, upstreamModel: string): void {
    const url = URL.canParse(request.origin) ? new URL(request.origin) : undefined;
    const attributes: Attributes = { [ATTR_GEN_AI_REQUEST_MODEL]: upstreamModel, [ATTR_HTTP_REQUEST_METHOD]: request.method ?? 'POST' };
    if (url) {
      attributes[ATTR_SERVER_ADDRESS] = url.hostname;
      attributes[ATTR_SERVER_PORT] = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    }
    this.span.setAttributes(attributes);
  }

  /**
   * The upstream's status line arrived: its status and the time to it (the time to first byte).
   * `at`: when the headers arrived (performance.now()), for an answer handed over only once whole.
   */
  responded(status: number, at = performance.now()): void {
    const ms = at - this.started;
    this.span.setAttributes({ [ATTR_HTTP_RESPONSE_STATUS_CODE]: status, 'modelgate.upstream.ttfb_ms': Math.round(ms * 1000) / 1000 });
    this.span.addEvent('upstream.response_headers', undefined, performance.timeOrigin + at);
  }

  /** The answer was delivered from this attempt. */
  delivered(): void {
    this.span.end();
  }

  /** The client left during this attempt. */
  clientGone(): void {
    this.span.setAttribute('modelgate.client_gone', true);
    this.span.end();
  }

  /** The attempt failed; the span ends (at this moment) once `close` says whether the call went on to another attempt. */
  failed(error: AppError): void {
    this.span.setAttributes({ [ATTR_ERROR_TYPE]: error.code, 'modelgate.error.type': error.type, 'modelgate.error.retryable': error.retryable });
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
  }

  close(retried: boolean): void {
    this.span.setAttribute('modelgate.retried', retried);
    // Ended on the span's own clock (Date.now() at its start plus performance.now() since): a
    // performance.now() timestamp passed in is read against performance.timeOrigin, which drifts
    // from Date.now() as a process runs, and could put the end after the next attempt's start.
    // close() comes straight after failed(), before the next attempt begins.
    this.span.end();
  }
}

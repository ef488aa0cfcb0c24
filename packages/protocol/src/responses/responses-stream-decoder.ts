import type { StreamDecoder } from '../convert/codec.js';
import type { ChatChunk, ChatDelta, ChatFinishReason, ChatUsage } from '../openai/chat-types.js';
import { reasoningTextOf, responsesFinishReason, responsesUsageToChat } from './responses-response-to-chat.js';

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** OpenAI chat streams a refusal as `delta.refusal`; the canonical delta type does not name it. */
type RefusalDelta = ChatDelta & { refusal?: string };

/**
 * Events whose payload repeats what the deltas and output_item.done already carried (the .done of
 * text and parts) or announces an empty part: nothing to read in them.
 */
const UNREAD_EVENTS: ReadonlySet<string> = new Set([
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.done',
  'response.refusal.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.done',
]);

/** A function_call item of the stream: its tool call index and what of it went out. */
interface Call {
  index: number;
  /** Its id and name went out (the tool call's first delta). */
  announced: boolean;
  /** Some of its arguments went out. */
  argumentsSent: boolean;
}

/**
 * The Responses API's stream events (platform.openai.com/docs/api-reference/responses-streaming)
 * as canonical chat chunks, for a chat client served through /v1/responses. Each event's JSON
 * `type` decides (the SSE event name, when present, is the same word).
 *
 * - response.created: the first chunk (role assistant); the response's id, created_at and model
 *   name every chunk.
 * - output_text / refusal / reasoning_summary_text / reasoning_text deltas: content, refusal and
 *   reasoning_content deltas (a new summary part or reasoning item is set off by a blank line,
 *   as the whole answer's are joined).
 * - a function_call item: a tool call, numbered in the order the items come, its id (call_id)
 *   and name on its first delta, then its arguments deltas.
 * - output_item.done, and the final response's output: whatever an upstream did not stream
 *   (arguments sent only whole, an item with no deltas at all) goes out from there.
 * - response.completed / response.incomplete: the finish chunk, then the usage chunk
 *   (`choices: []`), as OpenAI's include_usage ends a stream. response.failed and `error` set
 *   `error` and write nothing.
 */
export class ResponsesStreamDecoder implements StreamDecoder {
  error: { message: string; type: string } | undefined;
  usageSoFar: ChatUsage | undefined;
  private id = 'resp_unknown';
  private created = Math.floor(Date.now() / 1000);
  private roleSent = false;
  private ended = false;
  private usageSent = false;
  /** Function calls by item key (`#<output_index>` and `id:<item id>`). */
  private readonly calls = new Map<string, Call>();
  private callCount = 0;
  /** Keys of the items whose text went out, as deltas or whole. */
  private readonly written = new Set<string>();
  private lastReasoningPart: string | undefined;
  private reasoningSent = false;

  constructor(private model: string) {}

  push(data: string, event?: string): ChatChunk[] {
    if (this.ended || this.error) return [];
    // Named events that only repeat what came before are not parsed: they are a third of a
    // stream's bytes (the whole text again, the whole response again).
    if (event !== undefined && (UNREAD_EVENTS.has(event) || (event === 'response.in_progress' && this.roleSent))) return [];
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      // `[DONE]` from Responses-compatible upstreams that add it, and anything else not JSON.
      return [];
    }
    if (!isJson(payload)) return [];
    const type = typeof payload.type === 'string' ? payload.type : event;
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
        this.takeResponse(payload.response);
        return this.roleSent ? [] : [this.chunk({ content: '' })];
      case 'response.output_text.delta':
        return this.textDelta(payload, 'content');
      case 'response.refusal.delta':
        return this.textDelta(payload, 'refusal');
      case 'response.reasoning_summary_text.delta':
        return this.reasoningDelta(payload, `s${String(payload.summary_index ?? 0)}`);
      case 'response.reasoning_text.delta':
        return this.reasoningDelta(payload, `c${String(payload.content_index ?? 0)}`);
      case 'response.output_item.added':
        return isJson(payload.item) && payload.item.type === 'function_call' ? this.callAdded(payload.item, payload.output_index) : [];
      case 'response.function_call_arguments.delta':
        return this.argumentsDelta(payload);
      case 'response.function_call_arguments.done': {
        const call = this.callOf(payload.output_index, payload.item_id);
        return call && typeof payload.arguments === 'string' ? this.wholeArguments(call, payload.arguments) : [];
      }
      case 'response.output_item.done':
        return isJson(payload.item) ? this.itemDone(payload.item, payload.output_index) : [];
      case 'response.completed':
      case 'response.incomplete':
        return this.complete(payload.response);
      case 'response.failed': {
        const response = isJson(payload.response) ? payload.response : {};
        this.takeResponse(response);
        const error = isJson(response.error) ? response.error : {};
        this.error = {
          message: typeof error.message === 'string' ? error.message : 'the upstream response failed',
          type: typeof error.code === 'string' ? error.code : 'upstream_error',
        };
        return [];
      }
      case 'error': {
        // OpenAI puts code and message on the event; some compatible upstreams nest them in `error`.
        const error = isJson(payload.error) ? payload.error : payload;
        const code = error.code ?? error.type;
        this.error = {
          message: typeof error.message === 'string' ? error.message : 'the upstream stream failed',
          type: typeof code === 'string' && code !== 'error' ? code : 'upstream_error',
        };
        return [];
      }
      default:
        // content_part and summary_part events, the .done events of text, built-in tool events,
        // and whatever a newer API adds.
        return [];
    }
  }

  finish(): ChatChunk[] {
    return this.usageChunk();
  }

  private takeResponse(value: unknown): void {
    if (!isJson(value)) return;
    if (typeof value.id === 'string' && value.id !== '') this.id = value.id;
    if (typeof value.created_at === 'number') this.created = Math.floor(value.created_at);
    if (typeof value.model === 'string' && value.model !== '') this.model = value.model;
    const usage = responsesUsageToChat(value.usage);
    if (usage) this.usageSoFar = usage;
  }

  /** The keys an item goes by: its place in the output and its id, whichever the event gives. */
  private keysOf(outputIndex: unknown, itemId: unknown): string[] {
    const keys: string[] = [];
    if (typeof outputIndex === 'number') keys.push(`#${outputIndex}`);
    if (typeof itemId === 'string' && itemId !== '') keys.push(`id:${itemId}`);
    return keys;
  }

  private markWritten(keys: string[]): void {
    for (const key of keys) this.written.add(key);
  }

  private textDelta(payload: Json, field: 'content' | 'refusal'): ChatChunk[] {
    if (typeof payload.delta !== 'string' || payload.delta === '') return [];
    this.markWritten(this.keysOf(payload.output_index, payload.item_id));
    const delta: RefusalDelta = field === 'content' ? { content: payload.delta } : { refusal: payload.delta };
    return [this.chunk(delta)];
  }

  private reasoningDelta(payload: Json, part: string): ChatChunk[] {
    if (typeof payload.delta !== 'string' || payload.delta === '') return [];
    const keys = this.keysOf(payload.output_index, payload.item_id);
    this.markWritten(keys);
    return [this.chunk({ reasoning_content: this.reasoningPiece(`${keys[0] ?? '?'}/${part}`, payload.delta) })];
  }

  /** A piece of reasoning, set off by a blank line when it opens a new summary part or item. */
  private reasoningPiece(part: string, text: string): string {
    const opensPart = this.lastReasoningPart !== part && this.reasoningSent;
    this.lastReasoningPart = part;
    this.reasoningSent = true;
    return opensPart ? `\n\n${text}` : text;
  }

  private callOf(outputIndex: unknown, itemId: unknown): Call | undefined {
    for (const key of this.keysOf(outputIndex, itemId)) {
      const call = this.calls.get(key);
      if (call) return call;
    }
    return undefined;
  }

  private register(keys: string[]): Call {
    const call: Call = { index: this.callCount, announced: false, argumentsSent: false };
    this.callCount += 1;
    for (const key of keys) this.calls.set(key, call);
    this.markWritten(keys);
    return call;
  }

  /** A function_call item's first delta: its id and name, and its arguments if the item already has some. */
  private announce(call: Call, item: Json): ChatChunk[] {
    call.announced = true;
    const id = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : `call_${call.index}`;
    const name = typeof item.name === 'string' ? item.name : '';
    const args = call.argumentsSent || typeof item.arguments !== 'string' ? '' : item.arguments;
    if (args !== '') call.argumentsSent = true;
    return [this.chunk({ tool_calls: [{ index: call.index, id, type: 'function', function: { name, arguments: args } }] })];
  }

  private callAdded(item: Json, outputIndex: unknown): ChatChunk[] {
    const keys = this.keysOf(outputIndex, item.id);
    const call = this.callOf(outputIndex, item.id) ?? this.register(keys);
    return call.announced ? [] : this.announce(call, item);
  }

  private argumentsDelta(payload: Json): ChatChunk[] {
    if (typeof payload.delta !== 'string' || payload.delta === '') return [];
    // A delta for an item never announced (an upstream that skips output_item.added): numbered now, named at its done.
    const call = this.callOf(payload.output_index, payload.item_id) ?? this.register(this.keysOf(payload.output_index, payload.item_id));
    call.argumentsSent = true;
    return [this.chunk({ tool_calls: [{ index: call.index, function: { arguments: payload.delta } }] })];
  }

  private wholeArguments(call: Call, args: string): ChatChunk[] {
    if (call.argumentsSent || args === '') return [];
    call.argumentsSent = true;
    return [this.chunk({ tool_calls: [{ index: call.index, function: { arguments: args } }] })];
  }

  /** A finished item: what of it was not streamed goes out now. */
  private itemDone(item: Json, outputIndex: unknown): ChatChunk[] {
    const keys = this.keysOf(outputIndex, item.id);
    switch (item.type) {
      case 'function_call': {
        const call = this.callOf(outputIndex, item.id) ?? this.register(keys);
        if (!call.announced) return this.announce(call, item);
        return typeof item.arguments === 'string' ? this.wholeArguments(call, item.arguments) : [];
      }
      case 'message': {
        if (keys.some((key) => this.written.has(key))) return [];
        this.markWritten(keys);
        const chunks: ChatChunk[] = [];
        for (const part of Array.isArray(item.content) ? item.content : []) {
          if (!isJson(part)) continue;
          if (part.type === 'output_text' && typeof part.text === 'string' && part.text !== '') chunks.push(this.chunk({ content: part.text }));
          else if (part.type === 'refusal' && typeof part.refusal === 'string' && part.refusal !== '') {
            const delta: RefusalDelta = { refusal: part.refusal };
            chunks.push(this.chunk(delta));
          }
        }
        return chunks;
      }
      case 'reasoning': {
        if (keys.some((key) => this.written.has(key))) return [];
        this.markWritten(keys);
        const text = reasoningTextOf(item);
        return text === '' ? [] : [this.chunk({ reasoning_content: this.reasoningPiece(`${keys[0] ?? '?'}/done`, text) })];
      }
      default:
        return [];
    }
  }

  /** The final response: items never streamed, the finish chunk and the usage chunk. */
  private complete(value: unknown): ChatChunk[] {
    const response = isJson(value) ? value : {};
    this.takeResponse(response);
    const chunks: ChatChunk[] = [];
    const output = Array.isArray(response.output) ? response.output : [];
    output.forEach((item, index) => {
      if (isJson(item) && !this.keysOf(index, item.id).some((key) => this.written.has(key))) chunks.push(...this.itemDone(item, index));
    });
    this.ended = true;
    chunks.push(this.chunk({}, responsesFinishReason(response, this.callCount > 0)));
    chunks.push(...this.usageChunk());
    return chunks;
  }

  private usageChunk(): ChatChunk[] {
    if (!this.usageSoFar || this.usageSent || this.error) return [];
    this.usageSent = true;
    return [{ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage: this.usageSoFar }];
  }

  private chunk(delta: ChatDelta, finishReason: ChatFinishReason | null = null): ChatChunk {
    if (!this.roleSent) {
      this.roleSent = true;
      delta = { role: 'assistant', ...delta };
    }
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
  }
}

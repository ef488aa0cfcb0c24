import type { StreamDecoder } from '../convert/codec.js';
import type { ChatChunk, ChatDelta, ChatFinishReason } from '../openai/chat-types.js';
import { cohereFinishReason, cohereUsage } from './cohere-response.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const field = (value: unknown, ...path: string[]): unknown => {
  let current = value;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return current;
};
const textField = (value: unknown, ...path: string[]): string | undefined => {
  const found = field(value, ...path);
  return typeof found === 'string' ? found : undefined;
};

/**
 * Cohere v2 chat stream events (https://docs.cohere.com/v2/docs/streaming) as canonical chunks:
 * message-start opens the assistant turn, content-delta carries text (or a reasoning model's
 * thinking), tool-plan-delta the plan before tool calls (as reasoning_content), tool-call-start /
 * -delta the calls, message-end the finish reason and usage (one last chunk with `choices: []`).
 * content-start/-end, tool-call-end, citation-* and debug carry nothing the canonical shape keeps.
 */
export class CohereStreamDecoder implements StreamDecoder {
  private id = `chatcmpl-cohere-${Date.now()}`;
  private readonly created = Math.floor(Date.now() / 1000);
  private started = false;
  private ended = false;
  /** Cohere's tool-call index → ours (dense, in order of appearance). */
  private readonly toolIndexes = new Map<number, number>();
  private lastToolIndex = -1;
  private toolCount = 0;
  private sawToolCall = false;
  error: { message: string; type: string } | undefined;

  constructor(private readonly model: string) {}

  private chunk(delta: ChatDelta, finishReason: ChatFinishReason | null = null): ChatChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
  }

  /** A delta chunk, preceded by the role chunk when the stream did not open with message-start. */
  private emit(delta: ChatDelta): ChatChunk[] {
    if (this.started) return [this.chunk(delta)];
    this.started = true;
    return [this.chunk({ role: 'assistant', content: '' }), this.chunk(delta)];
  }

  private toolIndex(event: Json, opening: boolean): number {
    const cohereIndex = typeof event.index === 'number' ? event.index : undefined;
    if (cohereIndex === undefined) {
      // Without Cohere's index a start opens the next call and a delta continues the last one.
      if (opening || this.lastToolIndex < 0) this.lastToolIndex = this.toolCount++;
      return this.lastToolIndex;
    }
    let index = this.toolIndexes.get(cohereIndex);
    if (index === undefined) {
      index = this.toolCount++;
      this.toolIndexes.set(cohereIndex, index);
    }
    this.lastToolIndex = index;
    return index;
  }

  push(data: string, event?: string): ChatChunk[] {
    if (this.ended) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return [];
    }
    if (!isObject(parsed)) return [];
    const type = typeof parsed.type === 'string' ? parsed.type : event;
    switch (type) {
      case 'message-start': {
        if (typeof parsed.id === 'string' && parsed.id !== '') this.id = parsed.id;
        if (this.started) return [];
        this.started = true;
        return [this.chunk({ role: 'assistant', content: '' })];
      }
      case 'content-delta': {
        const text = textField(parsed, 'delta', 'message', 'content', 'text');
        if (text) return this.emit({ content: text });
        const thinking = textField(parsed, 'delta', 'message', 'content', 'thinking');
        return thinking ? this.emit({ reasoning_content: thinking }) : [];
      }
      case 'tool-plan-delta': {
        const plan = textField(parsed, 'delta', 'message', 'tool_plan');
        return plan ? this.emit({ reasoning_content: plan }) : [];
      }
      case 'tool-call-start': {
        const call = field(parsed, 'delta', 'message', 'tool_calls');
        if (!isObject(call)) return [];
        this.sawToolCall = true;
        const index = this.toolIndex(parsed, true);
        const args = textField(call, 'function', 'arguments') ?? '';
        return this.emit({
          tool_calls: [
            {
              index,
              id: typeof call.id === 'string' ? call.id : `call_${index}`,
              type: 'function',
              function: { name: textField(call, 'function', 'name') ?? '', arguments: args },
            },
          ],
        });
      }
      case 'tool-call-delta': {
        const args = textField(parsed, 'delta', 'message', 'tool_calls', 'function', 'arguments');
        if (!args) return [];
        return this.emit({ tool_calls: [{ index: this.toolIndex(parsed, false), function: { arguments: args } }] });
      }
      case 'message-end': {
        this.ended = true;
        const delta = isObject(parsed.delta) ? parsed.delta : {};
        const reason = delta.finish_reason;
        const finish: ChatFinishReason = reason === undefined && this.sawToolCall ? 'tool_calls' : cohereFinishReason(reason);
        if (reason === 'ERROR' || reason === 'error') {
          const message = textField(delta, 'error') ?? 'the upstream ended the answer with an error';
          this.error = { message, type: 'upstream_error' };
        }
        const chunks = this.started ? [] : [this.chunk({ role: 'assistant', content: '' })];
        this.started = true;
        chunks.push(this.chunk({}, finish));
        const usage = cohereUsage(delta.usage);
        if (usage) chunks.push({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage });
        return chunks;
      }
      case 'content-start':
      case 'content-end':
      case 'tool-call-end':
      case 'citation-start':
      case 'citation-end':
      case 'debug':
        return [];
      default: {
        // Not an event of the chat stream: an error object sent in its place.
        const message = textField(parsed, 'message');
        if (type === undefined && message) this.error = { message, type: 'upstream_error' };
        return [];
      }
    }
  }

  finish(): ChatChunk[] {
    // A stream cut before message-end still ends its turn, without usage (the relay counts it).
    if (this.ended || !this.started) return [];
    this.ended = true;
    return [this.chunk({}, this.sawToolCall ? 'tool_calls' : 'stop')];
  }
}

import type { StreamDecoder } from '../convert/codec.js';
import type { ChatChunk, ChatDelta, ChatFinishReason, ChatUsage } from '../openai/chat-types.js';
import { isJsonObject, type Json } from './anthropic-types.js';
import { anthropicStopToFinish, anthropicUsageToChat } from './anthropic-usage.js';

/**
 * Anthropic's stream events (https://docs.anthropic.com/en/docs/build-with-claude/streaming) as
 * canonical chat chunks. Each event's JSON `type` decides (the SSE event name is the same word).
 * Usage: message_start brings the input and cache counts, message_delta the cumulative output
 * count (and, on newer APIs, input and cache counts again): the latest of each wins. The usage
 * chunk (`choices: []`) is written at message_stop, as OpenAI's include_usage does at the end.
 */
export class AnthropicStreamDecoder implements StreamDecoder {
  error: { message: string; type: string } | undefined;
  private id = 'msg_unknown';
  private created = Math.floor(Date.now() / 1000);
  private roleSent = false;
  private usageSeen = false;
  private usageSent = false;
  private readonly usage: Json = {};
  /** Content block index → its tool call index (the count of tool_use blocks before it). */
  private readonly toolIndexByBlock = new Map<number, number>();

  constructor(private model: string) {}

  push(data: string, event?: string): ChatChunk[] {
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      return [];
    }
    if (!isJsonObject(payload)) return [];
    const type = typeof payload.type === 'string' ? payload.type : event;
    switch (type) {
      case 'message_start':
        return this.messageStart(payload);
      case 'content_block_start':
        return this.blockStart(payload);
      case 'content_block_delta':
        return this.blockDelta(payload);
      case 'message_delta': {
        this.takeUsage(payload.usage);
        const delta = isJsonObject(payload.delta) ? payload.delta : {};
        return delta.stop_reason ? [this.chunk({}, anthropicStopToFinish(delta.stop_reason))] : [];
      }
      case 'message_stop':
        return this.usageChunk();
      case 'error': {
        const error = isJsonObject(payload.error) ? payload.error : {};
        this.error = {
          message: typeof error.message === 'string' ? error.message : 'the upstream stream failed',
          type: typeof error.type === 'string' ? error.type : 'api_error',
        };
        return [];
      }
      default:
        // ping, content_block_stop and event types a newer API adds
        return [];
    }
  }

  finish(): ChatChunk[] {
    return this.usageChunk();
  }

  get usageSoFar(): ChatUsage | undefined {
    return this.usageSeen ? anthropicUsageToChat(this.usage) : undefined;
  }

  private messageStart(payload: Json): ChatChunk[] {
    const message = isJsonObject(payload.message) ? payload.message : {};
    if (typeof message.id === 'string') this.id = message.id;
    if (typeof message.model === 'string' && message.model !== '') this.model = message.model;
    this.takeUsage(message.usage);
    return [this.chunk({ content: '' })];
  }

  private blockStart(payload: Json): ChatChunk[] {
    const block = isJsonObject(payload.content_block) ? payload.content_block : {};
    const blockIndex = typeof payload.index === 'number' ? payload.index : -1;
    switch (block.type) {
      case 'text':
        return typeof block.text === 'string' && block.text !== '' ? [this.chunk({ content: block.text })] : [];
      case 'thinking':
        return typeof block.thinking === 'string' && block.thinking !== '' ? [this.chunk({ reasoning_content: block.thinking })] : [];
      case 'tool_use': {
        const index = this.toolIndexByBlock.size;
        this.toolIndexByBlock.set(blockIndex, index);
        const input = isJsonObject(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
        const id = typeof block.id === 'string' ? block.id : `toolu_${index}`;
        const name = typeof block.name === 'string' ? block.name : '';
        return [this.chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: input } }] })];
      }
      default:
        return [];
    }
  }

  private blockDelta(payload: Json): ChatChunk[] {
    const delta = isJsonObject(payload.delta) ? payload.delta : {};
    switch (delta.type) {
      case 'text_delta':
        return typeof delta.text === 'string' && delta.text !== '' ? [this.chunk({ content: delta.text })] : [];
      case 'thinking_delta':
        return typeof delta.thinking === 'string' && delta.thinking !== '' ? [this.chunk({ reasoning_content: delta.thinking })] : [];
      case 'input_json_delta': {
        const index = this.toolIndexByBlock.get(typeof payload.index === 'number' ? payload.index : -1);
        if (index === undefined || typeof delta.partial_json !== 'string' || delta.partial_json === '') return [];
        return [this.chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] })];
      }
      default:
        // signature_delta, citations_delta
        return [];
    }
  }

  private takeUsage(value: unknown): void {
    if (!isJsonObject(value)) return;
    if (isJsonObject(value.output_tokens_details)) this.usage.output_tokens_details = value.output_tokens_details;
    if (isJsonObject(value.cache_creation)) this.usage.cache_creation = value.cache_creation;
    for (const field of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']) {
      if (typeof value[field] === 'number') {
        this.usage[field] = value[field];
        this.usageSeen = true;
      }
    }
  }

  private usageChunk(): ChatChunk[] {
    if (!this.usageSeen || this.usageSent) return [];
    this.usageSent = true;
    const usage: ChatUsage = anthropicUsageToChat(this.usage);
    return [{ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage }];
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

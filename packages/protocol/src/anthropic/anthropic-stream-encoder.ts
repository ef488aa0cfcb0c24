import type { StreamEncoder } from '../convert/codec.js';
import type { ChatChunk, ChatFinishReason, ChatUsage } from '../openai/chat-types.js';
import { anthropicErrorBody } from './anthropic-types.js';
import { anthropicMessageId } from './anthropic-response.js';
import { chatUsageToAnthropic, finishToAnthropicStop } from './anthropic-usage.js';

type OpenBlock = { kind: 'text' } | { kind: 'thinking' } | { kind: 'tool'; toolIndex: number };

const sse = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/**
 * Canonical chat chunks as Anthropic's stream events for an Anthropic client: message_start, one
 * content block per run of text, thinking or one tool call, message_delta and message_stop.
 * OpenAI upstreams send finish_reason one chunk before the usage, so message_delta (which carries
 * both) waits for the usage or for finish().
 */
export class AnthropicStreamEncoder implements StreamEncoder {
  private started = false;
  private ended = false;
  private nextBlockIndex = 0;
  private open: OpenBlock | undefined;
  private finishReason: ChatFinishReason | null = null;
  private usage: ChatUsage | undefined;
  private messageDeltaSent = false;

  constructor(private readonly model: string) {}

  push(chunk: ChatChunk): string {
    if (this.ended) return '';
    let out = this.start(chunk);
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice) {
      const delta = choice.delta;
      if (delta.reasoning_content) {
        out += this.ensureBlock({ kind: 'thinking' });
        out += sse('content_block_delta', { index: this.nextBlockIndex - 1, delta: { type: 'thinking_delta', thinking: delta.reasoning_content } });
      }
      if (delta.content) {
        out += this.ensureBlock({ kind: 'text' });
        out += sse('content_block_delta', { index: this.nextBlockIndex - 1, delta: { type: 'text_delta', text: delta.content } });
      }
      for (const call of delta.tool_calls ?? []) {
        out += this.ensureBlock({ kind: 'tool', toolIndex: call.index }, call.id, call.function?.name);
        if (call.function?.arguments) {
          out += sse('content_block_delta', { index: this.nextBlockIndex - 1, delta: { type: 'input_json_delta', partial_json: call.function.arguments } });
        }
      }
      if (choice.finish_reason) {
        this.finishReason = choice.finish_reason;
        out += this.closeBlock();
      }
    }
    if (this.finishReason !== null && this.usage) out += this.messageDelta();
    return out;
  }

  finish(): string {
    if (this.ended) return '';
    let out = this.start(undefined);
    out += this.closeBlock();
    out += this.messageDelta();
    out += sse('message_stop', {});
    this.ended = true;
    return out;
  }

  error(message: string, type: string): string {
    if (this.ended) return '';
    this.ended = true;
    return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(type, message))}\n\n`;
  }

  private start(chunk: ChatChunk | undefined): string {
    if (this.started) return '';
    this.started = true;
    const usage = chatUsageToAnthropic(chunk?.usage);
    const message = {
      id: anthropicMessageId(chunk?.id ?? `${Date.now()}`),
      type: 'message',
      role: 'assistant',
      model: chunk?.model || this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 0 },
    };
    return sse('message_start', { message });
  }

  private ensureBlock(wanted: OpenBlock, toolId?: string, toolName?: string): string {
    const open = this.open;
    if (open && open.kind === wanted.kind && (open.kind !== 'tool' || wanted.kind !== 'tool' || open.toolIndex === wanted.toolIndex)) return '';
    let out = this.closeBlock();
    const index = this.nextBlockIndex++;
    this.open = wanted;
    switch (wanted.kind) {
      case 'text':
        out += sse('content_block_start', { index, content_block: { type: 'text', text: '' } });
        break;
      case 'thinking':
        out += sse('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        break;
      case 'tool':
        out += sse('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: toolId ?? `toolu_${wanted.toolIndex}`, name: toolName ?? '', input: {} },
        });
        break;
      default: {
        const unreachable: never = wanted;
        return unreachable;
      }
    }
    return out;
  }

  private closeBlock(): string {
    if (!this.open) return '';
    this.open = undefined;
    return sse('content_block_stop', { index: this.nextBlockIndex - 1 });
  }

  private messageDelta(): string {
    if (this.messageDeltaSent) return '';
    this.messageDeltaSent = true;
    return sse('message_delta', {
      delta: { stop_reason: finishToAnthropicStop(this.finishReason), stop_sequence: null },
      usage: chatUsageToAnthropic(this.usage),
    });
  }
}

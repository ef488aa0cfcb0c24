import type { StreamEncoder } from '../convert/codec.js';
import type { ChatChunk, ChatFinishReason, ChatUsage } from '../openai/chat-types.js';
import { responsesUsageOf, type ResponsesOutputItem, type ResponsesResponse } from './responses-response.js';

/** The item being streamed: a run of thinking, a run of text, or one tool call. */
type OpenItem =
  | { kind: 'reasoning'; id: string; outputIndex: number; text: string }
  | { kind: 'message'; id: string; outputIndex: number; text: string }
  | { kind: 'call'; id: string; outputIndex: number; toolIndex: number; callId: string; name: string; arguments: string };

/**
 * Canonical chat chunks as the Responses API's stream events, for a Responses client (Codex)
 * served by a chat channel: response.created and response.in_progress; per run of thinking a
 * reasoning item with its summary text deltas; per run of text a message item with
 * output_text deltas; per tool call a function_call item with its arguments deltas; then
 * response.completed (or response.incomplete at the output limit) carrying the whole response and
 * its usage. OpenAI upstreams send the finish reason one chunk before the usage, so the closing
 * event waits for the usage or for finish(). Every event carries its sequence_number.
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  private sequence = 0;
  private started = false;
  private ended = false;
  private open: OpenItem | undefined;
  private readonly output: ResponsesOutputItem[] = [];
  private finishReason: ChatFinishReason | null = null;
  private usage: ChatUsage | undefined;
  private id = '';
  private created = 0;

  constructor(
    private readonly model: string,
    /**
     * `id`: the response's id (by default one made from the upstream's); `onComplete`: told the
     * whole response once it completes (or ends incomplete), for a gateway that keeps it.
     */
    private readonly options: { id?: string | undefined; onComplete?: ((response: ResponsesResponse) => void) | undefined } = {},
  ) {}

  push(chunk: ChatChunk): string {
    if (this.ended) return '';
    let out = this.start(chunk);
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice) {
      const delta = choice.delta;
      if (delta.reasoning_content) {
        out += this.ensure('reasoning');
        const item = this.open as Extract<OpenItem, { kind: 'reasoning' }>;
        item.text += delta.reasoning_content;
        out += this.event('response.reasoning_summary_text.delta', {
          item_id: item.id,
          output_index: item.outputIndex,
          summary_index: 0,
          delta: delta.reasoning_content,
        });
      }
      if (delta.content) {
        out += this.ensure('message');
        const item = this.open as Extract<OpenItem, { kind: 'message' }>;
        item.text += delta.content;
        out += this.event('response.output_text.delta', { item_id: item.id, output_index: item.outputIndex, content_index: 0, delta: delta.content });
      }
      for (const call of delta.tool_calls ?? []) {
        const current = this.open;
        if (current?.kind !== 'call' || current.toolIndex !== call.index) {
          out += this.close();
          out += this.openCall(call.index, call.id ?? `call_${this.output.length}`, call.function?.name ?? '');
        }
        const item = this.open as Extract<OpenItem, { kind: 'call' }>;
        if (call.function?.arguments) {
          item.arguments += call.function.arguments;
          out += this.event('response.function_call_arguments.delta', { item_id: item.id, output_index: item.outputIndex, delta: call.function.arguments });
        }
      }
      if (choice.finish_reason) {
        this.finishReason = choice.finish_reason;
        out += this.close();
      }
    }
    if (this.finishReason !== null && this.usage) out += this.complete();
    return out;
  }

  finish(): string {
    if (this.ended) return '';
    return this.start(undefined) + this.close() + this.complete();
  }

  error(message: string, type: string): string {
    if (this.ended) return '';
    this.ended = true;
    const out = this.start(undefined) + this.close();
    return `${out}${this.event('response.failed', { response: { ...this.response('failed'), error: { code: type, message } } })}`;
  }

  private start(chunk: ChatChunk | undefined): string {
    if (this.started) return '';
    this.started = true;
    this.id = this.options.id ?? `resp_${(chunk?.id ?? `${Date.now()}`).replace(/^chatcmpl-/, '')}`;
    this.created = chunk?.created ?? Math.floor(Date.now() / 1000);
    const response = this.response('in_progress');
    return this.event('response.created', { response }) + this.event('response.in_progress', { response });
  }

  private ensure(kind: 'reasoning' | 'message'): string {
    if (this.open?.kind === kind) return '';
    const out = this.close();
    const outputIndex = this.output.length;
    const id = `${kind === 'reasoning' ? 'rs' : 'msg'}_${this.id.slice(5)}_${outputIndex}`;
    this.open = { kind, id, outputIndex, text: '' };
    if (kind === 'reasoning') {
      return (
        out +
        this.event('response.output_item.added', { output_index: outputIndex, item: { type: 'reasoning', id, summary: [] } }) +
        this.event('response.reasoning_summary_part.added', {
          item_id: id,
          output_index: outputIndex,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        })
      );
    }
    return (
      out +
      this.event('response.output_item.added', {
        output_index: outputIndex,
        item: { type: 'message', id, status: 'in_progress', role: 'assistant', content: [] },
      }) +
      this.event('response.content_part.added', {
        item_id: id,
        output_index: outputIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      })
    );
  }

  private openCall(toolIndex: number, callId: string, name: string): string {
    const outputIndex = this.output.length;
    const id = `fc_${callId}`;
    this.open = { kind: 'call', id, outputIndex, toolIndex, callId, name, arguments: '' };
    return this.event('response.output_item.added', {
      output_index: outputIndex,
      item: { type: 'function_call', id, call_id: callId, name, arguments: '', status: 'in_progress' },
    });
  }

  /** Ends the open item with its done events and keeps it for the final response. */
  private close(): string {
    const item = this.open;
    if (!item) return '';
    this.open = undefined;
    const at = { item_id: item.id, output_index: item.outputIndex };
    switch (item.kind) {
      case 'reasoning': {
        const done: ResponsesOutputItem = { type: 'reasoning', id: item.id, summary: [{ type: 'summary_text', text: item.text }] };
        this.output.push(done);
        return (
          this.event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: item.text }) +
          this.event('response.reasoning_summary_part.done', { ...at, summary_index: 0, part: { type: 'summary_text', text: item.text } }) +
          this.event('response.output_item.done', { output_index: item.outputIndex, item: done })
        );
      }
      case 'message': {
        const part = { type: 'output_text' as const, text: item.text, annotations: [] as [] };
        const status = this.finishReason === 'length' ? 'incomplete' : 'completed';
        const done: ResponsesOutputItem = { type: 'message', id: item.id, status, role: 'assistant', content: [part] };
        this.output.push(done);
        return (
          this.event('response.output_text.done', { ...at, content_index: 0, text: item.text }) +
          this.event('response.content_part.done', { ...at, content_index: 0, part }) +
          this.event('response.output_item.done', { output_index: item.outputIndex, item: done })
        );
      }
      case 'call': {
        const done: ResponsesOutputItem = {
          type: 'function_call',
          id: item.id,
          call_id: item.callId,
          name: item.name,
          arguments: item.arguments,
          status: 'completed',
        };
        this.output.push(done);
        return (
          this.event('response.function_call_arguments.done', { ...at, arguments: item.arguments }) +
          this.event('response.output_item.done', { output_index: item.outputIndex, item: done })
        );
      }
      default: {
        const never: never = item;
        return never;
      }
    }
  }

  private complete(): string {
    if (this.ended) return '';
    this.ended = true;
    const incomplete = this.finishReason === 'length' || this.finishReason === 'content_filter';
    const response = this.response(incomplete ? 'incomplete' : 'completed');
    this.options.onComplete?.(response as ResponsesResponse);
    return this.event(incomplete ? 'response.incomplete' : 'response.completed', { response });
  }

  private response(
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
  ): Omit<ResponsesResponse, 'status' | 'error'> & { status: string; error: null } {
    const incomplete = status === 'incomplete';
    return {
      id: this.id,
      object: 'response',
      created_at: this.created,
      status,
      incomplete_details: incomplete ? { reason: this.finishReason === 'length' ? 'max_output_tokens' : 'content_filter' } : null,
      error: null,
      model: this.model,
      output: status === 'in_progress' ? [] : [...this.output],
      output_text: this.output
        .flatMap((item) => (item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : []))
        .join(''),
      usage: status === 'in_progress' || !this.usage ? null : responsesUsageOf(this.usage),
    };
  }

  private event(type: string, data: Record<string, unknown>): string {
    const sequence_number = this.sequence;
    this.sequence += 1;
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number, ...data })}\n\n`;
  }
}

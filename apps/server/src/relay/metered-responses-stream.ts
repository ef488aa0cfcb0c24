import type { TokenUsage } from '@modelgate/protocol';
import { isJson, parseEvent, sseEvent, type EventMeter } from './metered-event-stream.js';
import type { OutputMeter } from './output-meter.js';

type Json = Record<string, unknown>;

/** Delta events whose text is generated output (audio deltas are not text). */
const isTextDelta = (type: string): boolean => type.endsWith('.delta') && !type.includes('audio');

/**
 * The Responses API's stream: every text delta (output text, refusals, reasoning, function call
 * arguments) is metered. The response and its output items are followed as they are announced
 * (response.created, output_item.added, content_part.added and the deltas), so that the ending
 * can close what is open as OpenAI does at max_output_tokens: output_text.done and
 * content_part.done for a message's parts, function_call_arguments.done for a call, an
 * output_item.done with status `incomplete` for each item, then `response.incomplete` (reason
 * `max_output_tokens`) carrying the output delivered and its usage. Event numbers
 * (`sequence_number`) go on from the upstream's.
 */
export class ResponsesEventMeter implements EventMeter {
  ended = false;
  private response: Json | undefined;
  /** Output items by output_index, with the text delivered so far. */
  private readonly items: Json[] = [];
  private readonly closed = new Set<number>();
  private sequence: number | undefined;

  constructor(private readonly meter: OutputMeter) {}

  admit(data: string, name: string | undefined): string | undefined {
    const event = parseEvent(data);
    if (event === undefined) return undefined;
    const type = typeof event.type === 'string' ? event.type : (name ?? '');
    let cut = false;
    if (isTextDelta(type) && typeof event.delta === 'string' && event.delta !== '') {
      const stream = `${String(event.output_index)}:${String(event.content_index ?? event.summary_index ?? '')}:${type}`;
      const kept = this.meter.take(stream, event.delta);
      if (kept !== event.delta) {
        event.delta = kept;
        cut = true;
      }
    }
    this.follow(type, event);
    this.ended = this.meter.exceeded;
    // A delta cut to nothing is not sent: the ending's numbers go on from the last event that was.
    if (cut && event.delta === '') return '';
    if (typeof event.sequence_number === 'number') this.sequence = event.sequence_number;
    return cut ? sseEvent(name, JSON.stringify(event)) : undefined;
  }

  closing(): { events: string; usage: TokenUsage } {
    let events = '';
    const emit = (type: string, fields: Json) => {
      const numbered = this.sequence === undefined ? { type, ...fields } : { type, sequence_number: (this.sequence += 1), ...fields };
      events += sseEvent(type, JSON.stringify(numbered));
    };
    for (const [index, item] of this.items.entries()) {
      if (item === undefined || this.closed.has(index)) continue;
      const place = { item_id: item.id, output_index: index };
      if (item.type === 'message' && Array.isArray(item.content)) {
        for (const [contentIndex, part] of item.content.entries()) {
          if (!isJson(part)) continue;
          if (part.type === 'output_text') emit('response.output_text.done', { ...place, content_index: contentIndex, text: part.text ?? '', logprobs: [] });
          else if (part.type === 'refusal') emit('response.refusal.done', { ...place, content_index: contentIndex, refusal: part.refusal ?? '' });
          emit('response.content_part.done', { ...place, content_index: contentIndex, part });
        }
      } else if (item.type === 'function_call') {
        emit('response.function_call_arguments.done', { ...place, arguments: item.arguments ?? '' });
      }
      if ('status' in item) item.status = 'incomplete';
      emit('response.output_item.done', { output_index: index, item });
    }
    const promptTokens = this.meter.promptTokens;
    const completionTokens = this.meter.metered;
    const usage = {
      input_tokens: promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: completionTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: promptTokens + completionTokens,
    };
    const response = this.response ?? { id: 'resp_metered', object: 'response', created_at: Math.floor(Date.now() / 1000), model: '' };
    emit('response.incomplete', {
      response: { ...response, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: this.items.filter(isJson), usage },
    });
    return { events, usage: { promptTokens, completionTokens } };
  }

  /** Keeps the response and its items as the events announce and fill them. */
  private follow(type: string, event: Json): void {
    const index = typeof event.output_index === 'number' ? event.output_index : -1;
    const item = index >= 0 ? this.items[index] : undefined;
    switch (type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
        if (isJson(event.response)) this.response = event.response;
        return;
      case 'response.output_item.added':
      case 'response.output_item.done':
        if (index >= 0 && isJson(event.item)) this.items[index] = event.item;
        if (type === 'response.output_item.done') this.closed.add(index);
        return;
      case 'response.content_part.added':
      case 'response.content_part.done':
        if (item && isJson(event.part) && typeof event.content_index === 'number') listOf(item, 'content')[event.content_index] = event.part;
        return;
      case 'response.reasoning_summary_part.added':
        if (item && isJson(event.part) && typeof event.summary_index === 'number') listOf(item, 'summary')[event.summary_index] = event.part;
        return;
      case 'response.output_text.delta':
      case 'response.reasoning_text.delta':
        appendTo(item && partOf(item, 'content', event.content_index), 'text', event.delta);
        return;
      case 'response.refusal.delta':
        appendTo(item && partOf(item, 'content', event.content_index), 'refusal', event.delta);
        return;
      case 'response.reasoning_summary_text.delta':
        appendTo(item && partOf(item, 'summary', event.summary_index), 'text', event.delta);
        return;
      case 'response.function_call_arguments.delta':
        appendTo(item, 'arguments', event.delta);
        return;
      default:
        return;
    }
  }
}

function listOf(item: Json, field: string): unknown[] {
  const list = item[field];
  if (Array.isArray(list)) return list;
  const made: unknown[] = [];
  item[field] = made;
  return made;
}

function partOf(item: Json, field: string, index: unknown): Json | undefined {
  const list = item[field];
  if (!Array.isArray(list) || typeof index !== 'number') return undefined;
  const part: unknown = list[index];
  return isJson(part) ? part : undefined;
}

function appendTo(target: Json | undefined, field: string, piece: unknown): void {
  if (target === undefined || typeof piece !== 'string') return;
  const had = target[field];
  target[field] = (typeof had === 'string' ? had : '') + piece;
}

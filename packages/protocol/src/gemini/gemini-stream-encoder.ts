import type { StreamEncoder } from '../convert/codec.js';
import type { ChatChunk, ChatToolCallDelta } from '../openai/chat-types.js';
import { chatFinishReasonToGemini } from './gemini-response.js';
import { chatUsageToGemini } from './gemini-usage.js';
import { isObject, type GeminiCandidate, type GeminiPart, type GeminiResponse, type Json } from './gemini-types.js';

interface PendingCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/** One SSE event as Google sends them with alt=sse. */
const event = (payload: unknown): string => `data: ${JSON.stringify(payload)}\r\n\r\n`;

/**
 * OpenAI chunks as Gemini's streamGenerateContent (alt=sse). Tool call arguments come in pieces
 * from OpenAI-style upstreams but a Gemini functionCall part is whole, so each call is held until
 * it is complete (the next call starts, or the choice finishes). Gemini always reports usage on
 * its last chunk, so the chunk that finishes is held until the usage arrives or the stream ends.
 */
export class GeminiStreamEncoder implements StreamEncoder {
  private readonly pendingCalls = new Map<number, Map<number, PendingCall>>();
  private held: GeminiResponse | undefined;
  private usage: GeminiResponse['usageMetadata'];
  private responseId: string | undefined;
  private usageReported = false;
  private readonly lastPosition = new WeakMap<Map<number, PendingCall>, number>();

  constructor(private readonly model: string) {}

  push(chunk: ChatChunk): string {
    this.responseId ??= chunk.id;
    let out = '';
    if (chunk.usage) {
      this.usage = chatUsageToGemini(chunk.usage);
      if (this.held) out += this.release();
    }
    const candidates: GeminiCandidate[] = [];
    let finishing = false;
    for (const choice of chunk.choices) {
      const parts: GeminiPart[] = [];
      const { delta } = choice;
      if (delta.reasoning_content) parts.push({ text: delta.reasoning_content, thought: true });
      if (typeof delta.content === 'string' && delta.content !== '') parts.push({ text: delta.content });
      for (const call of delta.tool_calls ?? []) parts.push(...this.takeCallDelta(choice.index, call));
      if (choice.finish_reason) parts.push(...this.flushCalls(choice.index));
      if (parts.length === 0 && !choice.finish_reason) continue;
      const candidate: GeminiCandidate = { content: { role: 'model', parts }, index: choice.index };
      if (choice.finish_reason) {
        candidate.finishReason = chatFinishReasonToGemini(choice.finish_reason);
        finishing = true;
      }
      candidates.push(candidate);
    }
    if (candidates.length === 0) return out;
    // Content after a held finish (another choice still streaming): the held chunk goes first.
    if (this.held) out += this.release();
    const response = this.response(candidates);
    if (finishing && !this.usage) this.held = response;
    else out += this.emit(response);
    return out;
  }

  finish(): string {
    const candidates: GeminiCandidate[] = [];
    for (const index of [...this.pendingCalls.keys()]) {
      const parts = this.flushCalls(index);
      if (parts.length > 0) candidates.push({ content: { role: 'model', parts }, index });
    }
    let out = '';
    if (candidates.length > 0) {
      if (this.held) out += event(this.held);
      this.held = undefined;
      return out + this.emit(this.response(candidates));
    }
    if (this.held) return this.release();
    if (this.usage && !this.usageReported) return this.emit(this.response([]));
    return '';
  }

  error(message: string): string {
    return event({ error: { code: 500, message, status: 'INTERNAL' } });
  }

  private release(): string {
    const held = this.held;
    this.held = undefined;
    return held ? this.emit(held) : '';
  }

  private emit(response: GeminiResponse): string {
    if (!this.usage) return event(response);
    this.usageReported = true;
    return event({ ...response, usageMetadata: this.usage });
  }

  private response(candidates: GeminiCandidate[]): GeminiResponse {
    const response: GeminiResponse = {};
    if (candidates.length > 0) response.candidates = candidates;
    response.modelVersion = this.model;
    if (this.responseId !== undefined) response.responseId = this.responseId;
    return response;
  }

  /** Adds a piece of a call; returns the calls it completed (those of lower index, now superseded). */
  private takeCallDelta(choiceIndex: number, piece: ChatToolCallDelta): GeminiPart[] {
    let calls = this.pendingCalls.get(choiceIndex);
    if (!calls) {
      calls = new Map();
      this.pendingCalls.set(choiceIndex, calls);
    }
    const done: GeminiPart[] = [];
    const position = this.positionOf(piece, calls);
    if (!calls.has(position)) {
      for (const [index, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
        if (index < position) {
          done.push(functionCallPart(call));
          calls.delete(index);
        }
      }
      calls.set(position, { id: undefined, name: '', arguments: '' });
    }
    const call = calls.get(position);
    if (call) {
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
    }
    return done;
  }

  /**
   * The call a piece belongs to. Some OpenAI-style upstreams leave `index` out and send each call
   * whole: a piece with an id not seen yet starts the next call, one without continues the last.
   */
  private positionOf(piece: ChatToolCallDelta, calls: Map<number, PendingCall>): number {
    if (typeof piece.index === 'number') return piece.index;
    const last = this.lastPosition.get(calls) ?? -1;
    const isNew = last === -1 || (piece.id !== undefined && calls.get(last)?.id !== piece.id && calls.get(last)?.id !== undefined);
    const position = isNew ? last + 1 : last;
    this.lastPosition.set(calls, position);
    return position;
  }

  private flushCalls(choiceIndex: number): GeminiPart[] {
    const calls = this.pendingCalls.get(choiceIndex);
    if (!calls) return [];
    this.pendingCalls.delete(choiceIndex);
    return [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => functionCallPart(call));
  }
}

function functionCallPart(call: PendingCall): GeminiPart {
  let args: Json = {};
  try {
    const parsed: unknown = JSON.parse(call.arguments || '{}');
    if (isObject(parsed)) args = parsed;
  } catch {
    // Arguments cut short or not JSON: the call goes out with none rather than not at all.
  }
  return { functionCall: { ...(call.id !== undefined ? { id: call.id } : {}), name: call.name, args } };
}

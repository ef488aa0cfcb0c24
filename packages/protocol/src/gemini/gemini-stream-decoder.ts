import type { StreamDecoder } from '../convert/codec.js';
import type { ChatChunk, ChatDelta, ChatFinishReason, ChatUsage } from '../openai/chat-types.js';
import { functionCallToToolCall, geminiFinishReason } from './gemini-response.js';
import { geminiUsageToChat } from './gemini-usage.js';
import { isObject, type Json } from './gemini-types.js';

interface CandidateState {
  started: boolean;
  nextToolIndex: number;
  finished: boolean;
}

/**
 * streamGenerateContent (alt=sse) as OpenAI chunks. Each event's data is a whole
 * GenerateContentResponse whose parts are new output; function calls arrive whole. usageMetadata
 * is cumulative (each chunk repeats the running count), so only the latest is kept and reported
 * once, as a `choices: []` chunk: right after the finish when the finishing chunk carries it,
 * else when the stream ends.
 */
export class GeminiStreamDecoder implements StreamDecoder {
  error: { message: string; type: string } | undefined;
  private id: string | undefined;
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly candidates = new Map<number, CandidateState>();
  private usage: ChatUsage | undefined;
  private reportedUsage: string | undefined;
  private callNumber = 0;

  constructor(private readonly model: string) {}

  push(data: string): ChatChunk[] {
    const trimmed = data.trim();
    if (trimmed === '' || trimmed === '[DONE]') return [];
    let event: unknown;
    try {
      event = JSON.parse(trimmed);
    } catch {
      this.error = { message: 'Gemini sent a stream event that is not JSON', type: 'upstream_error' };
      return [];
    }
    if (Array.isArray(event)) return event.filter(isObject).flatMap((item) => this.read(item));
    return isObject(event) ? this.read(event) : [];
  }

  finish(): ChatChunk[] {
    return this.usageChunk() ?? [];
  }

  get usageSoFar(): ChatUsage | undefined {
    return this.usage;
  }

  private read(response: Json): ChatChunk[] {
    if (isObject(response.error)) {
      const message = typeof response.error.message === 'string' ? response.error.message : 'Gemini reported an error';
      const type = typeof response.error.status === 'string' ? response.error.status : 'upstream_error';
      this.error = { message, type };
      return [];
    }
    if (this.id === undefined && typeof response.responseId === 'string' && response.responseId !== '') this.id = response.responseId;
    const usage = geminiUsageToChat(response.usageMetadata);
    if (usage) this.usage = usage;
    const chunks: ChatChunk[] = [];
    const candidates = Array.isArray(response.candidates) ? response.candidates.filter(isObject) : [];
    let finished = false;
    for (const [position, candidate] of candidates.entries()) {
      const index = typeof candidate.index === 'number' ? candidate.index : position;
      const chunk = this.candidateChunk(candidate, index);
      if (chunk) {
        chunks.push(chunk);
        if (chunk.choices[0]?.finish_reason) finished = true;
      }
    }
    const feedback = isObject(response.promptFeedback) ? response.promptFeedback : undefined;
    if (candidates.length === 0 && typeof feedback?.blockReason === 'string' && !this.candidates.has(0)) {
      this.candidates.set(0, { started: true, nextToolIndex: 0, finished: true });
      chunks.push(this.chunk(0, { role: 'assistant', content: '' }, 'content_filter'));
      finished = true;
    }
    if (finished && usage && [...this.candidates.values()].every((state) => state.finished)) chunks.push(...(this.usageChunk() ?? []));
    return chunks;
  }

  private candidateChunk(candidate: Json, index: number): ChatChunk | undefined {
    let state = this.candidates.get(index);
    if (!state) {
      state = { started: false, nextToolIndex: 0, finished: false };
      this.candidates.set(index, state);
    }
    const delta: ChatDelta = {};
    const content = isObject(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts.filter(isObject) : [];
    for (const part of content) {
      if (isObject(part.functionCall)) {
        const call = functionCallToToolCall(part.functionCall, `call_${this.id ?? 'gemini'}_${this.callNumber++}`);
        (delta.tool_calls ??= []).push({ index: state.nextToolIndex++, ...call });
      } else if (typeof part.text === 'string' && part.text !== '') {
        if (part.thought === true) delta.reasoning_content = (delta.reasoning_content ?? '') + part.text;
        else delta.content = (delta.content ?? '') + part.text;
      }
    }
    const reason = typeof candidate.finishReason === 'string' ? candidate.finishReason : undefined;
    const finishReason = geminiFinishReason(reason, state.nextToolIndex > 0);
    if (finishReason) state.finished = true;
    if (Object.keys(delta).length === 0 && !finishReason && state.started) return undefined;
    if (!state.started) {
      state.started = true;
      delta.role = 'assistant';
      if (delta.content === undefined && delta.tool_calls === undefined && delta.reasoning_content === undefined) delta.content = '';
    }
    return this.chunk(index, delta, finishReason);
  }

  private chunk(index: number, delta: ChatDelta, finishReason: ChatFinishReason | null): ChatChunk {
    return { ...this.base(), choices: [{ index, delta, finish_reason: finishReason }] };
  }

  private base(): Omit<ChatChunk, 'choices'> {
    return { id: this.id ?? `chatcmpl-gemini-${this.created}`, object: 'chat.completion.chunk', created: this.created, model: this.model };
  }

  private usageChunk(): ChatChunk[] | undefined {
    if (!this.usage) return undefined;
    const key = JSON.stringify(this.usage);
    if (key === this.reportedUsage) return undefined;
    this.reportedUsage = key;
    return [{ ...this.base(), choices: [], usage: this.usage }];
  }
}

import { DEFAULT_AUDIO_BYTES_PER_SECOND, type RealtimeSession, audioBytesPerSecond, sessionOutputLimit } from './realtime-events.js';
import type { RealtimeBound, RealtimeUsage } from './realtime-pricing.js';

/**
 * OpenAI's ceiling for one Realtime response's output ("an integer between 1 and 4096, or inf for
 * the maximum available tokens", which is 4096): what a response without a lower limit is held for.
 */
export const REALTIME_MAX_OUTPUT_TOKENS = 4096;

/**
 * Input audio tokens a second of audio can make. OpenAI counts about 10 (a token per 100 ms of the
 * user's audio); twice that, so that an estimate is never below what is reported.
 */
const AUDIO_TOKENS_PER_SECOND = 20;

/** The session's instructions and tools before the upstream described them: OpenAI's defaults are well below this. */
const UNKNOWN_SESSION_TEXT = 4096;

/** Text and audio tokens. */
interface Tokens {
  text: number;
  audio: number;
}

interface OpenResponse {
  /** What the client had added when the response started: the response's context holds it. */
  addedAt: Tokens;
  output: number;
}

/**
 * An upper bound of the next Realtime response's context, kept from what passes through the
 * session: the last response's reported context and output (the conversation it left), plus what
 * the client added since (text counted as a token a byte, audio by its duration), the session's
 * instructions and tools, and the outputs of the responses still under way. Each response.done
 * replaces the estimate with the upstream's own count, so the bound does not drift over a long
 * session. Holds are made from it (realtime-holds.ts).
 */
export class RealtimeContext {
  private known: Tokens = { text: 0, audio: 0 };
  /** What the client had added when the known context was counted. */
  private knownAt: Tokens = { text: 0, audio: 0 };
  /** Everything the client added since the session started. */
  private readonly added: Tokens = { text: 0, audio: 0 };
  private sessionText = UNKNOWN_SESSION_TEXT;
  private bytesPerSecond = DEFAULT_AUDIO_BYTES_PER_SECOND;
  private sessionLimit: number | undefined;
  private readonly open = new Map<string, OpenResponse>();

  constructor(
    /** The model's output ceiling (ModelMaxOutputTokens): a response never holds for more. */
    private readonly modelOutputLimit: number,
    /** The prompt price of an output joining the context is not known yet: counted as the dearer kind. */
    private readonly outputJoinsAsAudio: boolean,
  ) {}

  /** The upstream described the session (session.created, session.updated). */
  noteSession(session: RealtimeSession): void {
    this.sessionText = Buffer.byteLength(session.instructions ?? '') + (session.tools ? Buffer.byteLength(JSON.stringify(session.tools)) : 0);
    this.bytesPerSecond = audioBytesPerSecond(session) ?? this.bytesPerSecond;
    this.sessionLimit = sessionOutputLimit(session);
  }

  /** Text the client added to the conversation (bytes of the event). */
  addText(bytes: number): void {
    this.added.text += bytes;
  }

  /** Audio the client added, as base64 characters. */
  addAudio(base64Chars: number): void {
    this.added.audio += Math.ceil(((base64Chars * 3) / 4 / this.bytesPerSecond) * AUDIO_TOKENS_PER_SECOND);
  }

  /** The most output a response may have: its own limit, the session's, the model's and OpenAI's ceiling. */
  outputLimit(responseLimit?: number): number {
    return Math.min(
      responseLimit ?? Number.POSITIVE_INFINITY,
      this.sessionLimit ?? Number.POSITIVE_INFINITY,
      this.modelOutputLimit,
      REALTIME_MAX_OUTPUT_TOKENS,
    );
  }

  /** The next response's bound: `extraText` bytes of its own (a response.create's instructions and input) and its output limit. */
  next(extraText = 0, responseLimit?: number): RealtimeBound {
    let text = this.known.text + (this.added.text - this.knownAt.text) + this.sessionText + extraText;
    let audio = this.known.audio + (this.added.audio - this.knownAt.audio);
    for (const response of this.open.values()) {
      if (this.outputJoinsAsAudio) audio += response.output;
      else text += response.output;
    }
    return { inputText: text, inputAudio: audio, output: this.outputLimit(responseLimit) };
  }

  /** A response started upstream. */
  started(id: string, output: number): void {
    this.open.set(id, { addedAt: { ...this.added }, output });
  }

  /**
   * A response ended: its reported context and output are the conversation now. Without usage its
   * output bound joins what was known (the conversation grew by an unknown amount up to it).
   */
  ended(id: string, usage: RealtimeUsage | undefined): void {
    const response = this.open.get(id);
    this.open.delete(id);
    if (usage === undefined) {
      const output = response?.output ?? this.outputLimit();
      if (this.outputJoinsAsAudio) this.known.audio += output;
      else this.known.text += output;
      return;
    }
    this.known = { text: usage.inputText + usage.outputText, audio: usage.inputAudio + usage.outputAudio };
    this.knownAt = response ? response.addedAt : { ...this.added };
  }
}

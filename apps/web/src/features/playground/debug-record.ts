/**
 * The debug view's account of one call: the body sent, the status, the raw server events (or the
 * whole body of an answer that was not streamed), and when the first text and the end arrived.
 */
export interface DebugRecord {
  /** The JSON body sent, as an object (pretty-printed for display). */
  request: unknown;
  /** Sent from the request editor as written, not built from the conversation. */
  custom: boolean;
  /** Milliseconds since the epoch. */
  startedAt: number;
  status?: number;
  /** Milliseconds from sending to the first piece of reply text. */
  firstTokenMs?: number;
  /** Milliseconds from sending to the end of the answer. */
  totalMs?: number;
  /** The data of each server event as received (`[DONE]` included), the oldest dropped past MAX_DEBUG_EVENTS. */
  events: string[];
  /** How many events were dropped at the start. */
  droppedEvents: number;
  /** The body of an answer that was not a stream (a refusal, or stream:false). */
  responseBody?: string;
  outcome?: 'done' | 'aborted' | 'error';
  error?: string;
}

/** A long reply has thousands of events; the view keeps the newest. */
export const MAX_DEBUG_EVENTS = 2000;

export function startRecord(request: unknown, custom: boolean, now: number): DebugRecord {
  return { request, custom, startedAt: now, events: [], droppedEvents: 0 };
}

/** Appends the data of events received (in order). */
export function addEvents(record: DebugRecord, received: string[]): DebugRecord {
  const events = [...record.events, ...received];
  const over = events.length - MAX_DEBUG_EVENTS;
  return over > 0 ? { ...record, events: events.slice(over), droppedEvents: record.droppedEvents + over } : { ...record, events };
}

/** The first piece of text arrived at `now` (later pieces change nothing). */
export function markFirstToken(record: DebugRecord, now: number): DebugRecord {
  return record.firstTokenMs === undefined ? { ...record, firstTokenMs: Math.max(0, now - record.startedAt) } : record;
}

export function finishRecord(record: DebugRecord, outcome: NonNullable<DebugRecord['outcome']>, now: number, error?: string): DebugRecord {
  const finished: DebugRecord = { ...record, outcome, totalMs: Math.max(0, now - record.startedAt) };
  if (error !== undefined) finished.error = error;
  return finished;
}

/** The events as they came over the wire (`data: …` blocks). */
export function eventsText(record: DebugRecord): string {
  return record.events.map((data) => `data: ${data}`).join('\n\n');
}

/** The body pretty-printed when it is JSON, as received otherwise. */
export function prettyBody(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** "850 ms" below a second, "1.25 s" above. */
export function formatDuration(ms: number | undefined): string | null {
  if (ms === undefined) return null;
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export type CustomBodyProblem = 'badJson' | 'notObject' | 'noMessages';

/** The request editor's text as a body to send, or why it cannot be sent. */
export function parseCustomBody(text: string): { body: Record<string, unknown> } | { problem: CustomBodyProblem } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'badJson' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'notObject' };
  const body = value as Record<string, unknown>;
  if (!Array.isArray(body.messages) || body.messages.length === 0) return { problem: 'noMessages' };
  return { body };
}

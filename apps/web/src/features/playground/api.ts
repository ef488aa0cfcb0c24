import { USER_ID_HEADER, type UsableGroup, type UsableGroups } from '@modelgate/contract';
import i18n from '../../i18n';
import { api } from '../../lib/api-client';
import { clearSessionUser, getSessionUser } from '../../lib/session';
import type { PlaygroundRequest } from './chat-request';
import { errorMessageOf } from './sse';
import { readChatStream } from './stream-reader';

/** One entry of GET /api/user/self/groups (new-api's `{name: {ratio, desc}}`). */
export type { UsableGroup };

/** The models of the groups the user may use (GET /api/user/models), sorted by the server. */
export async function fetchUserModels(): Promise<string[]> {
  const { data } = await api.get<string[] | null>('/api/user/models');
  return Array.isArray(data) ? data.filter((model): model is string => typeof model === 'string') : [];
}

export async function fetchUserGroups(): Promise<UsableGroups> {
  const { data } = await api.get<UsableGroups | null>('/api/user/self/groups');
  return data ?? {};
}

/** How a playground call ended. `aborted`: the user pressed stop (or left the page). */
export type ChatStreamEnd = { kind: 'done' } | { kind: 'aborted' } | { kind: 'error'; message: string };

export interface ChatStreamHandlers {
  signal: AbortSignal;
  /** Called with each piece of the reply's text as it arrives. */
  onText: (text: string) => void;
  /** For the debug view: the HTTP status, each server event's data, the body of an answer that was not a stream. */
  onStatus?: (status: number) => void;
  onEvent?: (data: string) => void;
  onBody?: (text: string) => void;
}

const PLAYGROUND_PATH = '/pg/chat/completions';

const isAbort = (cause: unknown) => cause instanceof DOMException && cause.name === 'AbortError';

/**
 * The same headers the console's HTTP client sends (lib/api-client.ts: session cookie plus
 * New-Api-User), for a call that client cannot make: it reads whole JSON envelopes, and this
 * answer is a stream read as it arrives.
 */
function sessionHeaders(): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'Cache-Control': 'no-store' };
  const userId = getSessionUser()?.id;
  if (userId !== undefined) headers[USER_ID_HEADER] = String(userId);
  return headers;
}

/** The error of a refused call: OpenAI's `{error:{message}}`, new-api's envelope, or the raw text. */
async function refusalMessage(response: Response, onBody: ((text: string) => void) | undefined): Promise<string> {
  const text = await response.text().catch(() => '');
  onBody?.(text);
  try {
    const message = errorMessageOf(JSON.parse(text));
    if (message) return message;
  } catch {
    /* not JSON: the text itself, below */
  }
  return text.trim() || `HTTP ${response.status}`;
}

/** A 200 with a whole JSON answer instead of a stream (a server that ignored stream:true). */
function readWholeAnswer(payload: unknown, onText: (text: string) => void): ChatStreamEnd {
  const error = errorMessageOf(payload);
  if (error !== null) return { kind: 'error', message: error };
  const choices = (payload as { choices?: { message?: { content?: unknown } }[] } | null)?.choices;
  const content = choices?.[0]?.message?.content;
  if (typeof content !== 'string') return { kind: 'error', message: i18n.t('playground:errors.badAnswer') };
  onText(content);
  return { kind: 'done' };
}

/**
 * `POST /pg/chat/completions` (stream:true unless a custom body says otherwise): passes the reply's text on as it arrives and says
 * how the call ended. A refusal before the stream (non-200, OpenAI error JSON) and an error event
 * inside it both end as `error` with the server's words; a stream that stops before `[DONE]`
 * without saying why is an error too (the connection was cut). Aborting the signal ends the fetch,
 * which the server sees as the client leaving: it stops the upstream and bills what was generated.
 */
export async function streamChatCompletion(
  request: PlaygroundRequest | Record<string, unknown>,
  { signal, onText, onStatus, onEvent, onBody }: ChatStreamHandlers,
): Promise<ChatStreamEnd> {
  let response: Response;
  try {
    response = await fetch(PLAYGROUND_PATH, { method: 'POST', headers: sessionHeaders(), body: JSON.stringify(request), credentials: 'same-origin', signal });
  } catch (cause) {
    if (isAbort(cause) || signal.aborted) return { kind: 'aborted' };
    return { kind: 'error', message: i18n.t('common:errors.network') };
  }

  onStatus?.(response.status);
  if (!response.ok) {
    const message = await refusalMessage(response, onBody);
    // As every console call: a 401 means the session is gone; the route guard then sends the user to sign in.
    if (response.status === 401) clearSessionUser();
    return { kind: 'error', message };
  }

  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.includes('text/event-stream')) {
    const text = await response.text().catch(() => '');
    onBody?.(text);
    let payload: unknown = null;
    try {
      payload = JSON.parse(text);
    } catch {
      /* unreadable: readWholeAnswer says so */
    }
    return readWholeAnswer(payload, onText);
  }
  if (!response.body) return { kind: 'error', message: i18n.t('playground:errors.badAnswer') };

  try {
    const end = await readChatStream(response.body, onText, onEvent);
    return end.kind === 'cut' ? { kind: 'error', message: i18n.t('playground:errors.streamCut') } : end;
  } catch (cause) {
    if (isAbort(cause) || signal.aborted) return { kind: 'aborted' };
    return { kind: 'error', message: i18n.t('playground:errors.streamCut') };
  }
}

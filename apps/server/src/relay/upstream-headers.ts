import type { ChatFormat } from '@modelgate/protocol';
import type { IncomingHttpHeaders } from 'node:http';
import { CLIENT_VALUE, KEY_PLACEHOLDER, type HeaderOverride } from '../domain/relay-cache/relay-channel.js';
import type { UpstreamRequest } from '../providers/provider-types.js';

/**
 * The client's headers that reach an upstream speaking the client's own wire format: what coding
 * agents send to keep their session and request ids (the upstream's prompt cache and rate buckets
 * follow them). A request converted to another format leaves them behind: they mean nothing there.
 * Anthropic's `anthropic-version` and `anthropic-beta` travel through the chat attempt
 * (chat-attempt.ts), merged with claude.model_headers_settings.
 */
const SAME_FORMAT_HEADERS: Readonly<Record<ChatFormat, readonly string[]>> = {
  // Claude Code: its session id (v2.1.86 and later), its request id, the app that calls.
  anthropic: ['x-claude-code-session-id', 'x-client-request-id', 'x-app'],
  // Codex: its session and thread ids (session_id and conversation_id before 0.171), who calls
  // (originator), its request and window ids and turn metadata.
  responses: [
    'session-id',
    'thread-id',
    'session_id',
    'conversation_id',
    'originator',
    'x-client-request-id',
    'x-codex-window-id',
    'x-codex-turn-metadata',
    'openai-beta',
  ],
  openai: [],
  gemini: [],
  cohere: [],
};

const valueOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  if (typeof value === 'string') return value === '' ? undefined : value;
  return Array.isArray(value) && value.length > 0 ? value.join(', ') : undefined;
};

/**
 * Adds to a built upstream request the client's session headers (when the upstream speaks the
 * client's format) and then the channel's header_override, which wins over both the client's and
 * the adaptor's headers. Header names are lower case, as undici sends them.
 */
export function finishUpstreamHeaders(
  request: UpstreamRequest,
  sameFormat: ChatFormat | undefined,
  clientHeaders: IncomingHttpHeaders,
  override: HeaderOverride | undefined,
  key: string,
): void {
  if (sameFormat !== undefined) {
    for (const name of SAME_FORMAT_HEADERS[sameFormat]) {
      const value = valueOf(clientHeaders, name);
      if (value !== undefined && request.headers[name] === undefined) request.headers[name] = value;
    }
  }
  if (override === undefined) return;
  for (const [name, template] of override) {
    if (template === CLIENT_VALUE) {
      const value = valueOf(clientHeaders, name);
      if (value !== undefined) request.headers[name] = value;
      continue;
    }
    request.headers[name] = template.includes(KEY_PLACEHOLDER) ? template.replaceAll(KEY_PLACEHOLDER, key) : template;
  }
}

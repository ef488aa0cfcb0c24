import type { ErrorProtocol } from '../errors/render.js';

/**
 * Which error shape a path's callers understand. Read from the path alone, so a refusal made
 * before a request exists (a header too large, a timeout while reading it) answers in it too.
 */
export function protocolOfPath(url: string): ErrorProtocol {
  if (url.startsWith('/api/') || url === '/api') return 'api';
  if (url.startsWith('/v1beta/')) return 'gemini';
  if (url.startsWith('/v1/messages')) return 'anthropic';
  return 'openai';
}

export const isRelayPath = (url: string) => /^\/(v1|v1beta|pg|mj|suno|dashboard)(\/|$|\?)/.test(url);
/** new-api's /{mode}/mj/… (midjourney-proxy-plus speed modes) are relay paths too. */
export const isMjModePath = (url: string) => /^\/(mj-)?(fast|relax|turbo)\/mj(\/|$|\?)/.test(url);

import type { SystemStatus } from '../status/types';

/** One configured chat client: a URL template with {key} and {address} placeholders. */
export interface ChatLink {
  name: string;
  template: string;
}

/** The Chats option is malformed (not an array of {name: url} objects). */
export class ChatConfigError extends Error {
  constructor() {
    super('invalid Chats option');
    this.name = 'ChatConfigError';
  }
}

/**
 * ChatLink and ChatLink2 name ChatGPT-Next-Web deployments (chat, and its Midjourney flavour); like
 * new-api, the key and the server address are handed over in its settings fragment.
 */
const NEXT_CHAT_SETTINGS = '/#/?settings={"key":"{key}","url":"{address}"}';

function legacyLink(name: string, base: string | undefined): ChatLink | null {
  const trimmed = base?.trim();
  if (!trimmed) return null;
  const template = /\{key\}|\{address\}/.test(trimmed) ? trimmed : `${trimmed.replace(/\/+$/, '')}${NEXT_CHAT_SETTINGS}`;
  return { name, template };
}

/** status.chats: [{"ChatGPT Next Web": "https://…/#/?settings=…{key}…"}, …] (a JSON string in older stores). */
export function parseChats(raw: unknown): ChatLink[] {
  if (raw === undefined || raw === null || raw === '') return [];
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new ChatConfigError();
    }
  }
  if (!Array.isArray(value)) throw new ChatConfigError();
  return value.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ChatConfigError();
    const [pair] = Object.entries(entry as Record<string, unknown>);
    if (!pair || typeof pair[1] !== 'string' || pair[1].trim() === '') throw new ChatConfigError();
    return { name: pair[0], template: pair[1].trim() };
  });
}

/** Whether any chat client is configured; decides the side-nav "chat" entry. */
export function hasChatLink(status: SystemStatus): boolean {
  const chats = status.chats;
  const hasChats = Array.isArray(chats) ? chats.length > 0 : typeof chats === 'string' && chats.trim() !== '' && chats.trim() !== '[]';
  return hasChats || Boolean(status.chat_link?.trim()) || Boolean(status.chat_link2?.trim());
}

/**
 * The link /chat/{index} embeds: Chats[index] (index 0 by default), else ChatLink, else ChatLink2.
 * /chat2link prefers ChatLink (its original purpose) and falls back to the first of Chats.
 * Throws ChatConfigError for a malformed Chats option; null when nothing is configured.
 */
export function pickChatLink(status: SystemStatus, target: { index: number } | 'redirect'): ChatLink | null {
  const chats = parseChats(status.chats);
  const chatLink = legacyLink('ChatGPT Next Web', status.chat_link);
  const chatLink2 = legacyLink('ChatGPT Next Midjourney', status.chat_link2);
  if (target === 'redirect') return chatLink ?? chats[0] ?? chatLink2;
  return chats[target.index] ?? chatLink ?? chatLink2;
}

/** Fills the template: {key} with the sk- key, {address} with this server's address (URL-encoded). */
export function buildChatUrl(link: ChatLink, tokenKey: string, serverAddress: string): string {
  const key = tokenKey.startsWith('sk-') ? tokenKey : `sk-${tokenKey}`;
  return link.template.replaceAll('{address}', encodeURIComponent(serverAddress)).replaceAll('{key}', key);
}

/** status.server_address, else the address the console was loaded from. */
export function serverAddressOf(status: SystemStatus): string {
  return status.server_address?.trim().replace(/\/+$/, '') || window.location.origin;
}

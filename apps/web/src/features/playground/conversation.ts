import { normalizeImageUrl } from './image-input';

/**
 * The playground's messages and sidebar settings: their types, and how a stored copy is read back
 * field by field (conversation-store.ts keeps the list of conversations in localStorage).
 */

export type MessageRole = 'user' | 'assistant';

/** `streaming` while the reply arrives; `stopped` when the user stopped it; `error` when the call or the stream failed. */
export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'error';

export interface ChatMessage {
  id: string;
  role: MessageRole;
  /** The text (Markdown for replies); for a failed reply, what arrived before the failure. */
  content: string;
  status: MessageStatus;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** The failure's message, for status `error`. */
  error?: string;
  /** The model that answered, for replies. */
  model?: string;
  /** Image URLs sent with a user message (OpenAI `image_url` parts). */
  images?: string[];
  /** Pasted images (data: URLs) the question carried, which were not kept in storage. */
  omittedImages?: number;
}

export interface PlaygroundSettings {
  group: string;
  model: string;
  /** 0.1 to 1 in steps of 0.1 (spec 02 §9). */
  temperature: number;
  /** 0 means unset: not sent (spec 02 §9). */
  maxTokens: number;
  systemPrompt: string;
}

export const TEMPERATURE_MIN = 0.1;
export const TEMPERATURE_MAX = 1;
export const TEMPERATURE_STEP = 0.1;
export const DEFAULT_MODEL = 'gpt-4o-mini';

export const DEFAULT_SETTINGS: PlaygroundSettings = {
  group: '',
  model: '',
  temperature: 0.7,
  maxTokens: 0,
  systemPrompt: 'You are a helpful assistant.',
};

/** The localStorage keys of this screen (the console's shared keys are in lib/storage.ts). */
export const PLAYGROUND_CONVERSATIONS_KEY = 'playground_conversations';
/** The single conversation and sidebar of earlier versions: read once, moved into the list, removed. */
export const LEGACY_MESSAGES_KEY = 'playground_messages';
export const LEGACY_SETTINGS_KEY = 'playground_settings';

/** What localStorage offers that this module uses; tests pass a Map-backed one. */
export type KeyValueStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const STATUSES: readonly MessageStatus[] = ['complete', 'streaming', 'stopped', 'error'];

/** Clamps to the slider's range and snaps to its step, so a stored or typed value is always one the slider can show. */
export function normalizeTemperature(value: unknown): number {
  const number = typeof value === 'number' && Number.isFinite(value) ? value : DEFAULT_SETTINGS.temperature;
  const clamped = Math.min(TEMPERATURE_MAX, Math.max(TEMPERATURE_MIN, number));
  return Math.round(clamped / TEMPERATURE_STEP) / 10;
}

export function readMessage(value: unknown): ChatMessage | null {
  if (!isRecord(value)) return null;
  const { id, role, content, status, createdAt, error, model, images, omittedImages } = value;
  if (typeof id !== 'string' || (role !== 'user' && role !== 'assistant') || typeof content !== 'string') return null;
  if (!STATUSES.includes(status as MessageStatus)) return null;
  const message: ChatMessage = {
    id,
    role,
    content,
    // A reply still streaming when the page went away was cut off by that: it is stopped now.
    status: status === 'streaming' ? 'stopped' : (status as MessageStatus),
    createdAt: typeof createdAt === 'number' ? createdAt : 0,
  };
  if (typeof error === 'string') message.error = error;
  if (typeof model === 'string') message.model = model;
  if (Array.isArray(images)) {
    // Only addresses the image input itself would take: storage is editable by anyone at the keyboard.
    const urls = images.filter((url): url is string => typeof url === 'string' && normalizeImageUrl(url) === url);
    if (urls.length > 0) message.images = urls;
  }
  if (typeof omittedImages === 'number' && Number.isInteger(omittedImages) && omittedImages > 0) message.omittedImages = omittedImages;
  return message;
}

export function readJson(store: KeyValueStore, key: string): unknown {
  try {
    const raw = store.getItem(key);
    return raw ? (JSON.parse(raw) as unknown) : null;
  } catch {
    return null;
  }
}

export function writeJson(store: KeyValueStore, key: string, value: unknown): boolean {
  try {
    store.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    // Storage full or unavailable: the conversation still works in this tab.
    return false;
  }
}

/** The sidebar values in `value`, each field checked on its own (one bad field does not lose the rest). */
export function readSettings(value: unknown): PlaygroundSettings {
  if (!isRecord(value)) return { ...DEFAULT_SETTINGS };
  const maxTokens = value.maxTokens;
  return {
    group: typeof value.group === 'string' ? value.group : DEFAULT_SETTINGS.group,
    model: typeof value.model === 'string' ? value.model : DEFAULT_SETTINGS.model,
    temperature: normalizeTemperature(value.temperature),
    maxTokens: typeof maxTokens === 'number' && Number.isInteger(maxTokens) && maxTokens >= 0 ? maxTokens : DEFAULT_SETTINGS.maxTokens,
    systemPrompt: typeof value.systemPrompt === 'string' ? value.systemPrompt : DEFAULT_SETTINGS.systemPrompt,
  };
}

let sequence = 0;

/** Unique within the tab and across reloads (time plus a counter plus randomness). */
export function newMessageId(): string {
  sequence += 1;
  return `${Date.now().toString(36)}-${sequence.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The browser's localStorage, or null where it cannot be used (private mode, disabled). */
export function browserStore(): KeyValueStore | null {
  try {
    return typeof window !== 'undefined' ? window.localStorage : null;
  } catch {
    return null;
  }
}

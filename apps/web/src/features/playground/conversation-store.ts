/**
 * The playground's conversations: each keeps its messages and its sidebar settings, and the list
 * is kept in localStorage so a reload (or coming back later) finds them. The list is stored per
 * user: another account signing in on the same browser starts afresh, not with someone else's.
 * localStorage holds about 5 MB, so the list is bounded (conversations, messages per conversation)
 * and only image URLs are kept: an image pasted as a data: URL lives as long as the tab.
 */
import {
  DEFAULT_SETTINGS,
  isRecord,
  LEGACY_MESSAGES_KEY,
  LEGACY_SETTINGS_KEY,
  newMessageId,
  PLAYGROUND_CONVERSATIONS_KEY,
  readJson,
  readMessage,
  readSettings,
  writeJson,
  type ChatMessage,
  type KeyValueStore,
  type PlaygroundSettings,
} from './conversation';

export interface SavedConversation {
  id: string;
  /** Given by the user; '' means the conversation is named after its first question. */
  title: string;
  messages: ChatMessage[];
  settings: PlaygroundSettings;
  createdAt: number;
  updatedAt: number;
}

/** All conversations, newest first, and the one on screen. */
export interface ConversationBook {
  activeId: string;
  conversations: SavedConversation[];
}

/** Past this many, creating one drops the conversation left untouched the longest. */
export const MAX_CONVERSATIONS = 50;
/** A saved conversation beyond this many messages keeps only the newest ones. */
export const MAX_STORED_MESSAGES = 200;
export const MAX_TITLE_LENGTH = 60;
/** A title taken from the first question is cut here. */
const DERIVED_TITLE_LENGTH = 40;

export function newConversation(settings: PlaygroundSettings, now: number): SavedConversation {
  return { id: newMessageId(), title: '', messages: [], settings: { ...settings }, createdAt: now, updatedAt: now };
}

export function newBook(settings: PlaygroundSettings, now: number): ConversationBook {
  const first = newConversation(settings, now);
  return { activeId: first.id, conversations: [first] };
}

/** The conversation on screen (the book always holds at least one). */
export function activeConversation(book: ConversationBook): SavedConversation {
  return book.conversations.find((conversation) => conversation.id === book.activeId) ?? book.conversations[0]!;
}

/** What the list shows: the given title, else the first line of the first question, else null (the UI says "new conversation"). */
export function conversationTitle(conversation: SavedConversation): string | null {
  if (conversation.title !== '') return conversation.title;
  const question = conversation.messages.find((message) => message.role === 'user' && message.content.trim() !== '');
  if (!question) return null;
  const line = question.content.trim().split('\n')[0]!.trim();
  return line.length > DERIVED_TITLE_LENGTH ? `${line.slice(0, DERIVED_TITLE_LENGTH)}…` : line;
}

/** Drops the conversations left untouched the longest (never `keepId`) until at most `limit` remain. */
function bounded(conversations: SavedConversation[], keepId: string, limit: number): SavedConversation[] {
  if (conversations.length <= limit) return conversations;
  const byAge = conversations.filter((conversation) => conversation.id !== keepId).sort((a, b) => a.updatedAt - b.updatedAt);
  const dropped = new Set(byAge.slice(0, conversations.length - limit).map((conversation) => conversation.id));
  return conversations.filter((conversation) => !dropped.has(conversation.id));
}

/** A new empty conversation at the top of the list, on screen, with `settings` (the current ones, so the user keeps their model). */
export function addConversation(book: ConversationBook, settings: PlaygroundSettings, now: number): ConversationBook {
  const created = newConversation(settings, now);
  return { activeId: created.id, conversations: bounded([created, ...book.conversations], created.id, MAX_CONVERSATIONS) };
}

export function selectConversation(book: ConversationBook, id: string): ConversationBook {
  return book.conversations.some((conversation) => conversation.id === id) ? { ...book, activeId: id } : book;
}

export function updateConversation(
  book: ConversationBook,
  id: string,
  change: (conversation: SavedConversation) => SavedConversation,
  now: number,
): ConversationBook {
  return {
    ...book,
    conversations: book.conversations.map((conversation) => (conversation.id === id ? { ...change(conversation), updatedAt: now } : conversation)),
  };
}

/** A blank title gives the conversation back its derived name. */
export function renameConversation(book: ConversationBook, id: string, title: string, now: number): ConversationBook {
  const clean = title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_LENGTH);
  return updateConversation(book, id, (conversation) => ({ ...conversation, title: clean }), now);
}

/** Removes `id`; the one on screen then is the next in the list, or a fresh one (same settings) when none is left. */
export function deleteConversation(book: ConversationBook, id: string, now: number): ConversationBook {
  const index = book.conversations.findIndex((conversation) => conversation.id === id);
  if (index === -1) return book;
  const removed = book.conversations[index]!;
  const rest = book.conversations.filter((conversation) => conversation.id !== id);
  if (rest.length === 0) return newBook(removed.settings, now);
  if (book.activeId !== id) return { ...book, conversations: rest };
  return { activeId: rest[Math.min(index, rest.length - 1)]!.id, conversations: rest };
}

const storableImage = (url: string) => /^https?:\/\//i.test(url);

function storableMessage(message: ChatMessage): ChatMessage {
  if (!message.images) return message;
  const images = message.images.filter(storableImage);
  if (images.length === message.images.length) return message;
  const { images: _dropped, ...rest } = message;
  const kept: ChatMessage = { ...rest, omittedImages: (message.omittedImages ?? 0) + message.images.length - images.length };
  if (images.length > 0) kept.images = images;
  return kept;
}

function readConversation(value: unknown): SavedConversation | null {
  if (!isRecord(value) || typeof value.id !== 'string' || value.id === '' || !Array.isArray(value.messages)) return null;
  const now = Date.now();
  return {
    id: value.id,
    title: typeof value.title === 'string' ? value.title.slice(0, MAX_TITLE_LENGTH) : '',
    messages: value.messages.map(readMessage).filter((message): message is ChatMessage => message !== null),
    settings: readSettings(value.settings),
    createdAt: typeof value.createdAt === 'number' ? value.createdAt : now,
    updatedAt: typeof value.updatedAt === 'number' ? value.updatedAt : now,
  };
}

/** The single conversation and sidebar of earlier versions, for the same user, as one conversation; null when there is none. */
function readLegacy(store: KeyValueStore, userId: number, now: number): ConversationBook | null {
  const messages = readJson(store, LEGACY_MESSAGES_KEY);
  const settings = readJson(store, LEGACY_SETTINGS_KEY);
  const mine = (value: unknown) => isRecord(value) && value.user_id === userId;
  if (!mine(messages) && !mine(settings)) return null;
  const book = newBook(mine(settings) ? readSettings(settings) : DEFAULT_SETTINGS, now);
  if (mine(messages) && isRecord(messages) && Array.isArray(messages.messages)) {
    book.conversations[0]!.messages = messages.messages.map(readMessage).filter((message): message is ChatMessage => message !== null);
  }
  return book;
}

/**
 * The saved conversations of `userId`, or null when there are none (or they are another user's,
 * or unreadable). The storage of earlier versions is moved into the list the first time.
 */
export function loadBook(store: KeyValueStore, userId: number, now = Date.now()): ConversationBook | null {
  const saved = readJson(store, PLAYGROUND_CONVERSATIONS_KEY);
  if (isRecord(saved) && saved.user_id === userId && Array.isArray(saved.conversations)) {
    const conversations = saved.conversations.map(readConversation).filter((conversation): conversation is SavedConversation => conversation !== null);
    if (conversations.length > 0) {
      const activeId =
        typeof saved.active_id === 'string' && conversations.some((conversation) => conversation.id === saved.active_id)
          ? saved.active_id
          : conversations[0]!.id;
      return { activeId, conversations: bounded(conversations, activeId, MAX_CONVERSATIONS) };
    }
  }
  const legacy = readLegacy(store, userId, now);
  if (legacy && saveBook(store, userId, legacy)) {
    for (const key of [LEGACY_MESSAGES_KEY, LEGACY_SETTINGS_KEY]) {
      try {
        store.removeItem(key);
      } catch {
        /* unavailable storage: nothing to clean */
      }
    }
  }
  return legacy;
}

/**
 * Saves the list, each conversation cut to its newest messages and images to http(s) URLs. When
 * the storage is full, the conversations left untouched the longest are left out until it fits;
 * false when even the one on screen alone does not.
 */
export function saveBook(store: KeyValueStore, userId: number, book: ConversationBook): boolean {
  let conversations = book.conversations.map((conversation) => ({
    ...conversation,
    messages: conversation.messages.slice(-MAX_STORED_MESSAGES).map(storableMessage),
  }));
  for (;;) {
    if (writeJson(store, PLAYGROUND_CONVERSATIONS_KEY, { user_id: userId, active_id: book.activeId, conversations })) return true;
    if (conversations.length <= 1) return false;
    conversations = bounded(conversations, book.activeId, conversations.length - 1);
  }
}

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  LEGACY_MESSAGES_KEY,
  LEGACY_SETTINGS_KEY,
  normalizeTemperature,
  PLAYGROUND_CONVERSATIONS_KEY,
  type ChatMessage,
  type KeyValueStore,
} from './conversation';
import {
  activeConversation,
  addConversation,
  conversationTitle,
  deleteConversation,
  loadBook,
  MAX_CONVERSATIONS,
  MAX_STORED_MESSAGES,
  newBook,
  renameConversation,
  saveBook,
  selectConversation,
  updateConversation,
  type ConversationBook,
} from './conversation-store';

function memoryStore(limit = Number.POSITIVE_INFINITY): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => {
      if (value.length > limit) throw new DOMException('full', 'QuotaExceededError');
      data.set(key, value);
    },
    removeItem: (key) => void data.delete(key),
  };
}

const message = (role: ChatMessage['role'], content: string, status: ChatMessage['status'] = 'complete'): ChatMessage => ({
  id: `${role}-${content}`,
  role,
  content,
  status,
  createdAt: 1,
});

const withMessages = (book: ConversationBook, messages: ChatMessage[], now = 5): ConversationBook =>
  updateConversation(book, book.activeId, (conversation) => ({ ...conversation, messages }), now);

describe('the list of conversations', () => {
  it('adds new ones on top, on screen, with the current settings, and switches between them', () => {
    const settings = { ...DEFAULT_SETTINGS, model: 'm1', temperature: 0.3 };
    let book = withMessages(newBook(settings, 1), [message('user', 'first question')]);
    const firstId = book.activeId;
    book = addConversation(book, activeConversation(book).settings, 2);
    expect(book.conversations).toHaveLength(2);
    expect(book.activeId).toBe(book.conversations[0]!.id);
    expect(activeConversation(book)).toMatchObject({ messages: [], settings });
    book = selectConversation(book, firstId);
    expect(activeConversation(book).messages.map((entry) => entry.content)).toEqual(['first question']);
    expect(selectConversation(book, 'missing')).toBe(book);
  });

  it(`keeps at most ${MAX_CONVERSATIONS}, dropping the one left untouched the longest`, () => {
    let book = newBook(DEFAULT_SETTINGS, 0);
    const oldest = book.activeId;
    for (let index = 1; index < MAX_CONVERSATIONS; index += 1) book = addConversation(book, DEFAULT_SETTINGS, index);
    // The first one is used again: the second-oldest is then the one to go.
    book = updateConversation(book, oldest, (conversation) => conversation, 1000);
    const secondOldest = book.conversations.at(-2)!.id;
    book = addConversation(book, DEFAULT_SETTINGS, 2000);
    expect(book.conversations).toHaveLength(MAX_CONVERSATIONS);
    expect(book.conversations.some((conversation) => conversation.id === oldest)).toBe(true);
    expect(book.conversations.some((conversation) => conversation.id === secondOldest)).toBe(false);
  });

  it('is named after its first question until renamed; a blank name gives that back', () => {
    let book = newBook(DEFAULT_SETTINGS, 1);
    expect(conversationTitle(activeConversation(book))).toBeNull();
    book = withMessages(book, [message('user', '  How do rainbows form and why are they curved in the sky?\nsecond line')]);
    expect(conversationTitle(activeConversation(book))).toBe('How do rainbows form and why are they cu…');
    book = renameConversation(book, book.activeId, '  Rainbows \n notes ', 6);
    expect(conversationTitle(activeConversation(book))).toBe('Rainbows notes');
    book = renameConversation(book, book.activeId, '   ', 7);
    expect(conversationTitle(activeConversation(book))).toMatch(/^How do rainbows/);
  });

  it('deleting the one on screen shows the next; deleting the last leaves a fresh one with its settings', () => {
    let book = newBook({ ...DEFAULT_SETTINGS, model: 'kept' }, 1);
    const a = book.activeId;
    book = addConversation(book, DEFAULT_SETTINGS, 2);
    const b = book.activeId;
    book = addConversation(book, DEFAULT_SETTINGS, 3);
    const c = book.activeId;
    book = selectConversation(book, b);
    book = deleteConversation(book, b, 4);
    expect(book.conversations.map((conversation) => conversation.id)).toEqual([c, a]);
    expect(book.activeId).toBe(a);
    book = deleteConversation(deleteConversation(book, c, 5), a, 6);
    expect(book.conversations).toHaveLength(1);
    expect(book.activeId).not.toBe(a);
    expect(activeConversation(book)).toMatchObject({ messages: [], settings: { model: 'kept' } });
  });
});

describe('the stored conversations', () => {
  it('survive a save and a load for the same user, and are nothing for another user', () => {
    const store = memoryStore();
    let book = withMessages(newBook(DEFAULT_SETTINGS, 1), [
      message('user', 'hello'),
      { ...message('assistant', 'partial', 'error'), error: 'boom', model: 'gpt-4o-mini' },
    ]);
    book = addConversation(book, { ...DEFAULT_SETTINGS, model: 'other', maxTokens: 64 }, 2);
    expect(saveBook(store, 7, book)).toBe(true);
    expect(loadBook(store, 7)).toEqual(book);
    expect(loadBook(store, 8)).toBeNull();
  });

  it('turn a reply that was still streaming into a stopped one and keep only http(s) image URLs', () => {
    const store = memoryStore();
    const question = { ...message('user', 'look'), images: ['https://example.com/a.png', 'data:image/png;base64,AAAA'] };
    const pasted = { ...message('user', 'pasted'), images: ['data:image/png;base64,BBBB'] };
    saveBook(store, 1, withMessages(newBook(DEFAULT_SETTINGS, 1), [question, message('assistant', 'half', 'streaming'), pasted]));
    const loaded = activeConversation(loadBook(store, 1)!).messages;
    expect(loaded.map((entry) => entry.status)).toEqual(['complete', 'stopped', 'complete']);
    expect(loaded[0]).toMatchObject({ images: ['https://example.com/a.png'], omittedImages: 1 });
    expect(loaded[2]).not.toHaveProperty('images');
    expect(loaded[2]!.omittedImages).toBe(1);
  });

  it(`keep only the newest ${MAX_STORED_MESSAGES} messages of a conversation`, () => {
    const store = memoryStore();
    const many = Array.from({ length: MAX_STORED_MESSAGES + 5 }, (_, index) => message('user', String(index)));
    saveBook(store, 1, withMessages(newBook(DEFAULT_SETTINGS, 1), many));
    const loaded = activeConversation(loadBook(store, 1)!).messages;
    expect(loaded).toHaveLength(MAX_STORED_MESSAGES);
    expect(loaded[0]!.content).toBe('5');
  });

  it('leave out the conversations untouched the longest when the storage is full, never the one on screen', () => {
    let book = withMessages(newBook(DEFAULT_SETTINGS, 1), [message('user', 'x'.repeat(600))], 1);
    book = addConversation(book, DEFAULT_SETTINGS, 2);
    book = withMessages(book, [message('user', 'y'.repeat(600))], 3);
    const onScreen = book.activeId;
    const store = memoryStore(2000);
    expect(saveBook(store, 1, book)).toBe(true);
    expect(loadBook(store, 1)!.conversations.map((conversation) => conversation.id)).toEqual([onScreen]);
    expect(saveBook(memoryStore(10), 1, book)).toBe(false);
  });

  it('drop unreadable entries, read broken JSON as nothing, and check the settings field by field', () => {
    const store = memoryStore();
    store.setItem(
      PLAYGROUND_CONVERSATIONS_KEY,
      JSON.stringify({
        user_id: 1,
        active_id: 'gone',
        conversations: [
          {
            id: 'c1',
            title: 5,
            messages: [{ ...message('user', 'ok'), images: ['javascript:alert(1)', 'https://example.com/a.png', 7] }, { role: 'system', content: 'x' }, null],
            settings: { model: 'x', maxTokens: -2, temperature: 7 },
          },
          { id: '', messages: [] },
          'junk',
        ],
      }),
    );
    const book = loadBook(store, 1)!;
    expect(book.activeId).toBe('c1');
    expect(book.conversations).toHaveLength(1);
    expect(book.conversations[0]).toMatchObject({ title: '', settings: { model: 'x', maxTokens: 0, temperature: 1 } });
    expect(book.conversations[0]!.messages).toEqual([{ ...message('user', 'ok'), images: ['https://example.com/a.png'] }]);
    store.setItem(PLAYGROUND_CONVERSATIONS_KEY, '{not json');
    expect(loadBook(store, 1)).toBeNull();
    expect([0, 0.1, 0.44, 0.45, 0.96, 2, Number.NaN].map(normalizeTemperature)).toEqual([0.1, 0.1, 0.4, 0.5, 1, 1, 0.7]);
  });

  it('move the single conversation of earlier versions into the list once', () => {
    const store = memoryStore();
    store.setItem(LEGACY_MESSAGES_KEY, JSON.stringify({ user_id: 3, messages: [message('user', 'old question'), message('assistant', 'old answer')] }));
    store.setItem(LEGACY_SETTINGS_KEY, JSON.stringify({ user_id: 3, group: 'vip', model: 'm', temperature: 0.3, maxTokens: 256, systemPrompt: '' }));
    expect(loadBook(memoryStoreFrom(store), 4)).toBeNull();
    const book = loadBook(store, 3)!;
    expect(activeConversation(book).messages.map((entry) => entry.content)).toEqual(['old question', 'old answer']);
    expect(activeConversation(book).settings).toEqual({ group: 'vip', model: 'm', temperature: 0.3, maxTokens: 256, systemPrompt: '' });
    expect(store.data.has(LEGACY_MESSAGES_KEY)).toBe(false);
    expect(store.data.has(LEGACY_SETTINGS_KEY)).toBe(false);
    expect(loadBook(store, 3)).toEqual(book);
  });

  it('report a full storage instead of throwing', () => {
    const store: KeyValueStore = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
      removeItem: () => undefined,
    };
    expect(saveBook(store, 1, newBook(DEFAULT_SETTINGS, 1))).toBe(false);
  });
});

function memoryStoreFrom(source: ReturnType<typeof memoryStore>) {
  const copy = memoryStore();
  for (const [key, value] of source.data) copy.data.set(key, value);
  return copy;
}

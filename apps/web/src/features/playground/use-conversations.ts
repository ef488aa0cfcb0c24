import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { streamChatCompletion } from './api';
import { buildChatRequest, type PlaygroundRequest } from './chat-request';
import { browserStore, DEFAULT_SETTINGS, newMessageId, type ChatMessage, type PlaygroundSettings } from './conversation';
import {
  activeConversation,
  addConversation,
  deleteConversation,
  loadBook,
  newBook,
  renameConversation,
  saveBook,
  selectConversation,
  updateConversation,
  type ConversationBook,
  type SavedConversation,
} from './conversation-store';
import { addEvents, finishRecord, markFirstToken, startRecord, type DebugRecord } from './debug-record';
import { deleteMessage, editQuestion, historyBeforeReply } from './message-edits';

/** While a reply streams, the conversations are written to localStorage at most this often. */
const SAVE_WHILE_STREAMING_MS = 1000;

export interface Conversations {
  conversations: SavedConversation[];
  active: SavedConversation;
  /** A reply is streaming (into the conversation on screen: switching waits until it ends). */
  streaming: boolean;
  /** The last call of the conversation on screen, for the debug view (kept for this tab only). */
  debug: DebugRecord | null;
  create: () => void;
  select: (id: string) => void;
  rename: (id: string, title: string) => void;
  remove: (id: string) => void;
  updateSettings: (change: Partial<PlaygroundSettings>) => void;
  send: (text: string, images: string[]) => void;
  /** Re-asks question `id` with new words; what followed it is dropped. */
  editAndResend: (id: string, text: string, images: string[]) => void;
  regenerate: (replyId: string) => void;
  removeMessage: (id: string) => void;
  /** Sends the request editor's body as written; the answer is added as a reply. */
  sendCustom: (body: Record<string, unknown>) => void;
  stop: () => void;
  clear: () => void;
}

/**
 * The playground's conversations (restored from localStorage, saved back as they change), the call
 * in flight and its abort, and the debug record of each conversation's last call. The reply's text
 * arrives in many small pieces; they are applied once per animation frame, so a fast stream
 * re-renders the Markdown at most once per frame.
 */
export function useConversations(userId: number): Conversations {
  const store = useRef(browserStore()).current;
  const [book, setBook] = useState<ConversationBook>(() => (store && loadBook(store, userId)) || newBook(DEFAULT_SETTINGS, Date.now()));
  const [streaming, setStreaming] = useState(false);
  const [debugRecords, setDebugRecords] = useState<Record<string, DebugRecord>>({});
  const latest = useRef(book);
  latest.current = book;
  const controller = useRef<AbortController | null>(null);
  const lastSaved = useRef(0);

  const save = useCallback(() => {
    if (!store) return;
    lastSaved.current = Date.now();
    saveBook(store, userId, latest.current);
  }, [store, userId]);

  useEffect(() => {
    if (!streaming) {
      save();
      return;
    }
    const wait = Math.max(0, SAVE_WHILE_STREAMING_MS - (Date.now() - lastSaved.current));
    const timer = window.setTimeout(save, wait);
    return () => window.clearTimeout(timer);
  }, [book, streaming, save]);

  // Leaving the page ends the call (the server stops the upstream and bills what was generated).
  useEffect(
    () => () => {
      controller.current?.abort();
      save();
    },
    [save],
  );

  const setMessages = useCallback((conversationId: string, change: (messages: ChatMessage[]) => ChatMessage[]) => {
    setBook((current) =>
      updateConversation(current, conversationId, (conversation) => ({ ...conversation, messages: change(conversation.messages) }), Date.now()),
    );
  }, []);

  const setDebug = useCallback((conversationId: string, change: (record: DebugRecord) => DebugRecord) => {
    setDebugRecords((current) => {
      const record = current[conversationId];
      return record ? { ...current, [conversationId]: change(record) } : current;
    });
  }, []);

  /** Streams the answer to `request` into a new reply after `history` in conversation `conversationId`. */
  const run = useCallback(
    async (conversationId: string, history: ChatMessage[], request: PlaygroundRequest | Record<string, unknown>, custom: boolean, model: string) => {
      const reply: ChatMessage = { id: newMessageId(), role: 'assistant', content: '', status: 'streaming', createdAt: Date.now(), model };
      setMessages(conversationId, () => [...history, reply]);
      setDebugRecords((current) => ({ ...current, [conversationId]: startRecord(request, custom, Date.now()) }));
      setStreaming(true);
      const abort = new AbortController();
      controller.current = abort;

      // Text and raw events are applied once per frame, as one update each.
      let pending = '';
      let pendingEvents: string[] = [];
      let firstTokenAt: number | null = null;
      let frame: number | null = null;
      const updateReply = (change: (message: ChatMessage) => ChatMessage) =>
        setMessages(conversationId, (messages) => messages.map((message) => (message.id === reply.id ? change(message) : message)));
      const flush = () => {
        frame = null;
        if (pendingEvents.length > 0 || firstTokenAt !== null) {
          const events = pendingEvents;
          const at = firstTokenAt;
          pendingEvents = [];
          setDebug(conversationId, (record) => {
            const withEvents = addEvents(record, events);
            return at === null ? withEvents : markFirstToken(withEvents, at);
          });
        }
        if (pending === '') return;
        const piece = pending;
        pending = '';
        updateReply((message) => ({ ...message, content: message.content + piece }));
      };
      const schedule = () => {
        frame ??= window.requestAnimationFrame(flush);
      };
      const end = await streamChatCompletion(request, {
        signal: abort.signal,
        onText: (piece) => {
          firstTokenAt ??= Date.now();
          pending += piece;
          schedule();
        },
        onStatus: (status) => setDebug(conversationId, (record) => ({ ...record, status })),
        onEvent: (data) => {
          pendingEvents.push(data);
          schedule();
        },
        onBody: (text) => setDebug(conversationId, (record) => ({ ...record, responseBody: text })),
      });
      if (frame !== null) window.cancelAnimationFrame(frame);
      flush();
      const outcome = end.kind === 'done' ? 'done' : end.kind === 'aborted' ? 'aborted' : 'error';
      setDebug(conversationId, (record) => finishRecord(record, outcome, Date.now(), end.kind === 'error' ? end.message : undefined));
      updateReply((message) => {
        if (end.kind === 'done') return { ...message, status: 'complete' };
        if (end.kind === 'aborted') return { ...message, status: 'stopped' };
        return { ...message, status: 'error', error: end.message };
      });
      controller.current = null;
      setStreaming(false);
    },
    [setMessages, setDebug],
  );

  const ask = useCallback(
    (history: ChatMessage[]) => {
      if (controller.current) return;
      const conversation = activeConversation(latest.current);
      void run(conversation.id, history, buildChatRequest(conversation.settings, history), false, conversation.settings.model);
    },
    [run],
  );

  const send = useCallback(
    (text: string, images: string[]) => {
      const question: ChatMessage = { id: newMessageId(), role: 'user', content: text, status: 'complete', createdAt: Date.now() };
      if (images.length > 0) question.images = images;
      ask([...activeConversation(latest.current).messages, question]);
    },
    [ask],
  );

  const editAndResend = useCallback(
    (id: string, text: string, images: string[]) => {
      const history = editQuestion(activeConversation(latest.current).messages, id, text, images);
      if (history) ask(history);
    },
    [ask],
  );

  const regenerate = useCallback(
    (replyId: string) => {
      const history = historyBeforeReply(activeConversation(latest.current).messages, replyId);
      if (history) ask(history);
    },
    [ask],
  );

  const sendCustom = useCallback(
    (body: Record<string, unknown>) => {
      if (controller.current) return;
      const conversation = activeConversation(latest.current);
      const model = typeof body.model === 'string' ? body.model : conversation.settings.model;
      void run(conversation.id, conversation.messages, body, true, model);
    },
    [run],
  );

  const whenIdle = useCallback((change: (current: ConversationBook) => ConversationBook) => {
    if (controller.current) return;
    setBook(change);
  }, []);

  const create = useCallback(() => whenIdle((current) => addConversation(current, activeConversation(current).settings, Date.now())), [whenIdle]);
  const select = useCallback((id: string) => whenIdle((current) => selectConversation(current, id)), [whenIdle]);
  const rename = useCallback((id: string, title: string) => setBook((current) => renameConversation(current, id, title, Date.now())), []);
  const remove = useCallback(
    (id: string) => {
      whenIdle((current) => deleteConversation(current, id, Date.now()));
      setDebugRecords(({ [id]: _removed, ...rest }) => rest);
    },
    [whenIdle],
  );
  const removeMessage = useCallback(
    (id: string) => {
      if (controller.current) return;
      setMessages(activeConversation(latest.current).id, (messages) => deleteMessage(messages, id));
    },
    [setMessages],
  );
  const clear = useCallback(() => {
    if (controller.current) return;
    setMessages(activeConversation(latest.current).id, () => []);
  }, [setMessages]);

  const updateSettings = useCallback((change: Partial<PlaygroundSettings>) => {
    setBook((current) =>
      updateConversation(current, current.activeId, (conversation) => ({ ...conversation, settings: { ...conversation.settings, ...change } }), Date.now()),
    );
  }, []);

  const stop = useCallback(() => controller.current?.abort(), []);
  const active = useMemo(() => activeConversation(book), [book]);

  return {
    conversations: book.conversations,
    active,
    streaming,
    debug: debugRecords[active.id] ?? null,
    create,
    select,
    rename,
    remove,
    updateSettings,
    send,
    editAndResend,
    regenerate,
    removeMessage,
    sendCustom,
    stop,
    clear,
  };
}

import { useCallback, useEffect, useRef, useState } from 'react';
import { streamChatCompletion } from './api';
import { buildChatRequest } from './chat-request';
import { browserStore, clearMessages, loadMessages, newMessageId, saveMessages, type ChatMessage, type PlaygroundSettings } from './conversation';

/** While a reply streams, the conversation is written to localStorage at most this often. */
const SAVE_WHILE_STREAMING_MS = 1000;

export interface Conversation {
  messages: ChatMessage[];
  streaming: boolean;
  send: (text: string, settings: PlaygroundSettings) => Promise<void>;
  stop: () => void;
  clear: () => void;
}

/**
 * The chat box's state: the messages (restored from localStorage, saved back as they change), the
 * call in flight and its abort. The reply's text arrives in many small pieces; they are applied
 * once per animation frame, so a fast stream re-renders the Markdown at most once per frame.
 */
export function useConversation(userId: number): Conversation {
  const store = useRef(browserStore()).current;
  const [messages, setMessages] = useState<ChatMessage[]>(() => (store ? loadMessages(store, userId) : []));
  const [streaming, setStreaming] = useState(false);
  const latest = useRef(messages);
  latest.current = messages;
  const controller = useRef<AbortController | null>(null);
  const lastSaved = useRef(0);

  const save = useCallback(() => {
    if (!store) return;
    lastSaved.current = Date.now();
    saveMessages(store, userId, latest.current);
  }, [store, userId]);

  useEffect(() => {
    if (!streaming) {
      save();
      return;
    }
    const wait = Math.max(0, SAVE_WHILE_STREAMING_MS - (Date.now() - lastSaved.current));
    const timer = window.setTimeout(save, wait);
    return () => window.clearTimeout(timer);
  }, [messages, streaming, save]);

  // Leaving the page ends the call (the server stops the upstream and bills what was generated).
  useEffect(
    () => () => {
      controller.current?.abort();
      save();
    },
    [save],
  );

  const updateMessage = useCallback((id: string, change: (message: ChatMessage) => ChatMessage) => {
    setMessages((current) => current.map((message) => (message.id === id ? change(message) : message)));
  }, []);

  const send = useCallback(
    async (text: string, settings: PlaygroundSettings) => {
      if (controller.current) return;
      const now = Date.now();
      const question: ChatMessage = { id: newMessageId(), role: 'user', content: text, status: 'complete', createdAt: now };
      const reply: ChatMessage = { id: newMessageId(), role: 'assistant', content: '', status: 'streaming', createdAt: now, model: settings.model };
      const history = [...latest.current, question];
      const request = buildChatRequest(settings, history);
      setMessages([...history, reply]);
      setStreaming(true);
      const abort = new AbortController();
      controller.current = abort;

      let pending = '';
      let frame: number | null = null;
      const flush = () => {
        frame = null;
        if (pending === '') return;
        const piece = pending;
        pending = '';
        updateMessage(reply.id, (message) => ({ ...message, content: message.content + piece }));
      };
      const end = await streamChatCompletion(request, {
        signal: abort.signal,
        onText: (piece) => {
          pending += piece;
          frame ??= window.requestAnimationFrame(flush);
        },
      });
      if (frame !== null) window.cancelAnimationFrame(frame);
      flush();
      updateMessage(reply.id, (message) => {
        if (end.kind === 'done') return { ...message, status: 'complete' };
        if (end.kind === 'aborted') return { ...message, status: 'stopped' };
        return { ...message, status: 'error', error: end.message };
      });
      controller.current = null;
      setStreaming(false);
    },
    [updateMessage],
  );

  const stop = useCallback(() => controller.current?.abort(), []);

  const clear = useCallback(() => {
    if (controller.current) return;
    setMessages([]);
    if (store) clearMessages(store);
  }, [store]);

  return { messages, streaming, send, stop, clear };
}

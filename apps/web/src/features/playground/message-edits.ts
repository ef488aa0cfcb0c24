import type { ChatMessage } from './conversation';

/**
 * What the message actions do to a conversation: editing a question re-asks it (what followed it
 * answered the old wording, so it goes), regenerating asks the last question again, deleting a
 * question takes its answer with it (an answer to nothing would confuse the model).
 */

/** The history to send after editing question `id`: the messages before it and the edited question; null when `id` is not a question. */
export function editQuestion(messages: ChatMessage[], id: string, content: string, images: string[] | undefined): ChatMessage[] | null {
  const index = messages.findIndex((message) => message.id === id);
  const question = messages[index];
  if (!question || question.role !== 'user') return null;
  const edited: ChatMessage = { ...question, content, status: 'complete' };
  if (images && images.length > 0) edited.images = images;
  else delete edited.images;
  return [...messages.slice(0, index), edited];
}

/** The id of the reply that may be regenerated: the last message, when it is a reply to a question. */
export function regenerableReplyId(messages: ChatMessage[]): string | null {
  const last = messages.at(-1);
  const before = messages.at(-2);
  return last?.role === 'assistant' && before?.role === 'user' ? last.id : null;
}

/** The history to send when regenerating reply `id`: everything before it (ending with its question); null when it may not be regenerated. */
export function historyBeforeReply(messages: ChatMessage[], id: string): ChatMessage[] | null {
  if (regenerableReplyId(messages) !== id) return null;
  return messages.slice(0, -1);
}

/** Removes message `id`; a question goes with the reply that follows it. */
export function deleteMessage(messages: ChatMessage[], id: string): ChatMessage[] {
  const index = messages.findIndex((message) => message.id === id);
  if (index === -1) return messages;
  const count = messages[index]!.role === 'user' && messages[index + 1]?.role === 'assistant' ? 2 : 1;
  return [...messages.slice(0, index), ...messages.slice(index + count)];
}

/** The text a copy button puts on the clipboard: the message, and its image URLs on lines of their own. */
export function copyText(message: ChatMessage): string {
  return [message.content, ...(message.images ?? [])].filter((part) => part !== '').join('\n');
}

import { ChatConfigError, parseChats, pickChatLink, type ChatLink } from '../chat/chat-links';
import type { SystemStatus } from '../status/types';

export type ChatMenu = { kind: 'links'; links: ChatLink[] } | { kind: 'configError' };

/**
 * A token row's chat menu: every entry of the Chats option, then ChatLink and ChatLink2
 * (pickChatLink with no Chats entries yields ChatLink, else ChatLink2, already templated).
 */
export function chatMenu(status: SystemStatus): ChatMenu {
  try {
    const links = parseChats(status.chats);
    const withoutChats = { ...status, chats: [] };
    const first = pickChatLink({ ...withoutChats, chat_link2: '' }, { index: 0 });
    const second = pickChatLink({ ...withoutChats, chat_link: '' }, { index: 0 });
    for (const link of [first, second]) if (link) links.push(link);
    return { kind: 'links', links };
  } catch (error) {
    if (error instanceof ChatConfigError) return { kind: 'configError' };
    throw error;
  }
}

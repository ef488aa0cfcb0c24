import { Empty } from '@douyinfe/semi-ui';
import { IconComment } from '@douyinfe/semi-icons';
import { useEffect, useLayoutEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatMessage } from '../conversation';
import { regenerableReplyId } from '../message-edits';
import { MessageItem } from './message-item';

interface MessageListProps {
  messages: ChatMessage[];
  busy: boolean;
  onEdit: (id: string, text: string, images: string[]) => void;
  onRegenerate: (id: string) => void;
  onDelete: (id: string) => void;
}

/** How close to the bottom (px) still counts as "reading the newest": new text then scrolls into view. */
const STICK_TO_BOTTOM_PX = 80;

/**
 * The conversation, scrolled to the newest message as a reply streams in, unless the user has
 * scrolled up to read something older.
 */
export function MessageList({ messages, busy, onEdit, onRegenerate, onDelete }: MessageListProps) {
  const { t } = useTranslation('playground');
  const pane = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    const element = pane.current;
    if (!element) return;
    const onScroll = () => {
      stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < STICK_TO_BOTTOM_PX;
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, []);

  useLayoutEffect(() => {
    const element = pane.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [messages]);

  // A new question always brings the view down to it.
  const count = messages.length;
  const regenerable = regenerableReplyId(messages);
  useLayoutEffect(() => {
    stick.current = true;
    const element = pane.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [count]);

  return (
    <div className="mg-pg-messages" ref={pane} data-testid="pg-messages" aria-live="polite">
      {messages.length === 0 ? (
        <div className="mg-pg-empty">
          <Empty image={<IconComment size="extra-large" />} title={t('chat.empty')} description={t('chat.emptyHint')} />
        </div>
      ) : (
        messages.map((message) => (
          <MessageItem
            key={message.id}
            message={message}
            busy={busy}
            regenerable={message.id === regenerable}
            onEdit={onEdit}
            onRegenerate={onRegenerate}
            onDelete={onDelete}
          />
        ))
      )}
    </div>
  );
}

import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { ChatNotice } from './components/chat-notice';
import { useChatTarget } from './queries';
import './chat.css';

function chatIndex(id: string | undefined): number {
  const index = Number.parseInt(id ?? '0', 10);
  return Number.isSafeInteger(index) && index >= 0 ? index : 0;
}

/** /chat/{id?}: the configured chat client, full height, signed in with the user's first enabled key. */
export default function ChatPage() {
  const { t } = useTranslation('chat');
  const { id } = useParams();
  const target = useChatTarget({ index: chatIndex(id) });

  if (target.state !== 'ready') return <ChatNotice target={target} loadingText={t('loading')} />;
  return (
    <iframe
      key={target.url}
      src={target.url}
      title={target.link.name || t('frameTitle')}
      className="mg-embedded-page mg-chat-frame"
      allow="clipboard-read; clipboard-write; microphone"
      data-testid="chat-frame"
    />
  );
}

import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { ChatNotice } from './components/chat-notice';
import { useChatTarget } from './queries';
import './chat.css';

/** /chat2link: leaves the console for the chat client, signed in with the first enabled key. */
export default function Chat2LinkPage() {
  const { t } = useTranslation('chat');
  const target = useChatTarget('redirect');
  const url = target.state === 'ready' ? target.url : null;

  useEffect(() => {
    // replace: the back button should return to where the user came from, not bounce here again.
    if (url) window.location.replace(url);
  }, [url]);

  if (target.state === 'ready') return <ChatNotice target={{ state: 'loading' }} loadingText={t('redirectingToChat')} />;
  return <ChatNotice target={target} loadingText={t('loading')} />;
}

import { useEffect, useRef } from 'react';
import { loginWithTelegram, type TelegramAuthData, type UserInfo } from '../api';

const CALLBACK_NAME = 'modelgateTelegramAuth';

declare global {
  interface Window {
    [CALLBACK_NAME]?: (auth: TelegramAuthData) => void;
  }
}

interface TelegramLoginButtonProps {
  botName: string;
  onSignedIn: (user: UserInfo) => void;
}

/** Telegram's own widget (an iframe it injects next to its script tag); it calls a global function on success. */
export function TelegramLoginButton({ botName, onSignedIn }: TelegramLoginButtonProps) {
  const container = useRef<HTMLDivElement>(null);
  const onSignedInRef = useRef(onSignedIn);
  onSignedInRef.current = onSignedIn;

  useEffect(() => {
    const host = container.current;
    if (!host || !botName) return;
    window[CALLBACK_NAME] = (auth) => {
      loginWithTelegram(auth).then(onSignedInRef.current, () => undefined);
    };
    const script = document.createElement('script');
    script.src = 'https://telegram.org/js/telegram-widget.js?22';
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', 'large');
    script.setAttribute('data-radius', '6');
    script.setAttribute('data-request-access', 'write');
    script.setAttribute('data-onauth', `${CALLBACK_NAME}(user)`);
    host.appendChild(script);
    return () => {
      host.replaceChildren();
      delete window[CALLBACK_NAME];
    };
  }, [botName]);

  return <div ref={container} className="mg-telegram-login" />;
}

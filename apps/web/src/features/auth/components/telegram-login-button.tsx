import { useEffect, useRef } from 'react';
import { loginWithTelegram, type TelegramAuthData, type UserInfo } from '../api';

const CALLBACK_NAME = 'modelgateTelegramAuth';

declare global {
  interface Window {
    [CALLBACK_NAME]?: (auth: TelegramAuthData) => void;
  }
}

interface TelegramWidgetProps {
  botName: string;
  /** Receives the signed widget data; the server checks its hash (sign-in or binding). */
  onAuth: (auth: TelegramAuthData) => void;
}

/** Telegram's own widget (an iframe it injects next to its script tag); it calls a global function on success. */
export function TelegramWidget({ botName, onAuth }: TelegramWidgetProps) {
  const container = useRef<HTMLDivElement>(null);
  const onAuthRef = useRef(onAuth);
  onAuthRef.current = onAuth;

  useEffect(() => {
    const host = container.current;
    if (!host || !botName) return;
    window[CALLBACK_NAME] = (auth) => onAuthRef.current(auth);
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

interface TelegramLoginButtonProps {
  botName: string;
  onSignedIn: (user: UserInfo) => void;
}

export function TelegramLoginButton({ botName, onSignedIn }: TelegramLoginButtonProps) {
  const onAuth = (auth: TelegramAuthData) => {
    loginWithTelegram(auth).then(onSignedIn, () => undefined);
  };
  return <TelegramWidget botName={botName} onAuth={onAuth} />;
}

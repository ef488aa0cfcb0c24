import { Button } from '@douyinfe/semi-ui';
import { IconKey } from '@douyinfe/semi-icons';
import type { SignedInUser } from '@modelgate/contract';
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { signInWithPasskey } from '../passkey-ceremonies';
import '../passkeys.css';

/** 使用通行密钥登录 on the sign-in page, when the site has passkeys on and the browser can use them. */
export function PasskeyLoginButton({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const { t } = useTranslation('passkeys');
  const [busy, setBusy] = useState(false);
  if (!browserSupportsWebAuthn()) return null;

  const signIn = async () => {
    setBusy(true);
    try {
      onSignedIn(await signInWithPasskey());
    } catch {
      // The API client or the ceremony has shown why (unknown passkey, cancelled, turned off).
      setBusy(false);
    }
  };

  return (
    <Button className="mg-passkey-login" icon={<IconKey />} size="large" block loading={busy} onClick={() => void signIn()}>
      {t('login.button')}
    </Button>
  );
}

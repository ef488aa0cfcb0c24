import { Button, Toast } from '@douyinfe/semi-ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCountdown } from '../../../lib/use-countdown';
import { sendVerificationCode } from '../api';

/** Spec 01 §9: the code can be resent after 30 seconds. */
export const RESEND_COOLDOWN_SECONDS = 30;

interface VerificationCodeButtonProps {
  getEmail: () => string;
  /** Returns false when sending must wait (e.g. the bot check has no token yet). */
  beforeSend: () => boolean;
  turnstileToken: string;
}

export function VerificationCodeButton({ getEmail, beforeSend, turnstileToken }: VerificationCodeButtonProps) {
  const { t } = useTranslation('auth');
  const countdown = useCountdown(RESEND_COOLDOWN_SECONDS);
  const [sending, setSending] = useState(false);

  const send = async () => {
    const email = getEmail();
    if (!email) {
      Toast.warning(t('register.emailRequired'));
      return;
    }
    if (!beforeSend()) return;
    setSending(true);
    try {
      await sendVerificationCode(email, turnstileToken);
      Toast.success(t('register.codeSent'));
      countdown.start();
    } catch {
      /* the API client showed why */
    } finally {
      setSending(false);
    }
  };

  return (
    <Button theme="borderless" type="primary" disabled={countdown.active} loading={sending} onClick={() => void send()}>
      {countdown.active ? t('register.resendIn', { seconds: countdown.remaining }) : t('register.sendCode')}
    </Button>
  );
}

import { Button, Form, Toast, Typography } from '@douyinfe/semi-ui';
import { IconMail } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useCountdown } from '../../lib/use-countdown';
import { useStatus } from '../status/queries';
import { requestPasswordReset } from './api';
import { AuthCard } from './components/auth-card';
import { RESEND_COOLDOWN_SECONDS } from './components/verification-code-button';
import { useTurnstile } from './use-turnstile';

export default function ResetRequestPage() {
  const { t } = useTranslation('auth');
  const status = useStatus();
  const turnstile = useTurnstile(status);
  const countdown = useCountdown(RESEND_COOLDOWN_SECONDS);
  const [sending, setSending] = useState(false);

  const onSubmit = async (values: { email?: string }) => {
    const email = values.email?.trim() ?? '';
    if (!email) {
      Toast.warning(t('resetRequest.emailRequired'));
      return;
    }
    if (!turnstile.ready()) return;
    setSending(true);
    try {
      await requestPasswordReset(email, turnstile.token);
      Toast.success(t('resetRequest.sent'));
      countdown.start();
    } catch {
      /* the API client showed why */
    } finally {
      setSending(false);
    }
  };

  return (
    <AuthCard
      title={t('resetRequest.title')}
      subtitle={t('resetRequest.description')}
      footer={
        <Typography.Text type="tertiary">
          <Link to="/login">{t('resetRequest.backToLogin')}</Link>
        </Typography.Text>
      }
    >
      <Form<{ email?: string }> onSubmit={(values) => void onSubmit(values)} labelPosition="top" className="mg-auth-form">
        <Form.Input
          field="email"
          type="email"
          label={t('resetRequest.email')}
          placeholder={t('resetRequest.emailPlaceholder')}
          prefix={<IconMail />}
          autoComplete="email"
          size="large"
        />
        {turnstile.widget}
        <Button htmlType="submit" theme="solid" type="primary" size="large" block loading={sending} disabled={countdown.active} data-testid="reset-submit">
          {countdown.active ? t('resetRequest.resendIn', { seconds: countdown.remaining }) : t('resetRequest.submit')}
        </Button>
      </Form>
    </AuthCard>
  );
}

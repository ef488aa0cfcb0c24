import { Button, Form, Toast, Typography } from '@douyinfe/semi-ui';
import { IconShield } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { loginWithSecondFactor, type UserInfo } from '../api';

interface TwoFactorLoginFormProps {
  onSignedIn: (user: UserInfo) => void;
  onBack: () => void;
}

/** The second step of a password sign-in on an account with 2FA: a TOTP or a backup code. */
export function TwoFactorLoginForm({ onSignedIn, onBack }: TwoFactorLoginFormProps) {
  const { t } = useTranslation('security');
  const [submitting, setSubmitting] = useState(false);

  const submit = async (values: { code?: string }) => {
    const code = values.code?.trim() ?? '';
    if (!code) {
      Toast.warning(t('login.required'));
      return;
    }
    setSubmitting(true);
    try {
      onSignedIn(await loginWithSecondFactor(code));
    } catch {
      // The API client showed why (a wrong or used code, the 5 minutes are over, a lock).
      setSubmitting(false);
    }
  };

  return (
    <Form<{ code?: string }> onSubmit={(values) => void submit(values)} labelPosition="top" className="mg-auth-form" data-testid="two-factor-login">
      <Typography.Title heading={5}>{t('login.title')}</Typography.Title>
      <Typography.Text type="tertiary">{t('login.hint')}</Typography.Text>
      <Form.Input
        field="code"
        label={t('login.code')}
        placeholder={t('login.codePlaceholder')}
        prefix={<IconShield />}
        autoComplete="one-time-code"
        autoFocus
        size="large"
        data-testid="two-factor-login-code"
      />
      <Button htmlType="submit" theme="solid" type="primary" size="large" block loading={submitting} data-testid="two-factor-login-submit">
        {t('login.submit')}
      </Button>
      <Button theme="borderless" type="tertiary" block onClick={onBack}>
        {t('login.back')}
      </Button>
    </Form>
  );
}

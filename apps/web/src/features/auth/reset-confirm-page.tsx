import { Banner, Button, Input, Typography } from '@douyinfe/semi-ui';
import { IconCopy, IconMail } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { copyWithFeedback } from '../../lib/clipboard';
import { confirmPasswordReset } from './api';
import { AuthCard } from './components/auth-card';

/** Opened from the reset mail: /user/reset?email=…&token=… */
export default function ResetConfirmPage() {
  const { t } = useTranslation('auth');
  const [searchParams] = useSearchParams();
  const email = searchParams.get('email') ?? '';
  const token = searchParams.get('token') ?? '';
  const [submitting, setSubmitting] = useState(false);
  const [newPassword, setNewPassword] = useState<string | null>(null);

  const submit = async () => {
    setSubmitting(true);
    try {
      const password = await confirmPasswordReset(email, token);
      setNewPassword(password);
      await copyWithFeedback(password);
    } catch {
      /* the API client showed why (link invalid or expired) */
    } finally {
      setSubmitting(false);
    }
  };

  const linkValid = Boolean(email && token);
  return (
    <AuthCard
      title={t('resetConfirm.title')}
      subtitle={t('resetConfirm.description')}
      footer={
        <Typography.Text type="tertiary">
          <Link to="/login">{t('resetConfirm.toLogin')}</Link>
        </Typography.Text>
      }
    >
      {!linkValid && <Banner type="danger" closeIcon={null} description={t('resetConfirm.invalidLink')} className="mg-auth-banner" />}
      <div className="mg-auth-form mg-stack">
        <label className="mg-field">
          <Typography.Text strong>{t('resetConfirm.email')}</Typography.Text>
          <Input value={email} disabled prefix={<IconMail />} size="large" />
        </label>
        {newPassword !== null ? (
          <>
            <Banner type="success" closeIcon={null} title={t('resetConfirm.success')} description={t('resetConfirm.newPasswordHint')} />
            <label className="mg-field">
              <Typography.Text strong>{t('resetConfirm.newPassword')}</Typography.Text>
              <Input value={newPassword} readonly size="large" className="mg-mono" data-testid="new-password" />
            </label>
            <Button icon={<IconCopy />} size="large" block onClick={() => void copyWithFeedback(newPassword)}>
              {t('resetConfirm.copy')}
            </Button>
          </>
        ) : (
          <Button theme="solid" type="primary" size="large" block loading={submitting} disabled={!linkValid} onClick={() => void submit()}>
            {t('resetConfirm.submit')}
          </Button>
        )}
      </div>
    </AuthCard>
  );
}

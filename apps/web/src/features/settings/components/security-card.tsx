import { Button, Card, Input, Popconfirm, Typography } from '@douyinfe/semi-ui';
import { IconCopy, IconKey, IconLock, IconShield, IconDelete } from '@douyinfe/semi-icons';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import { resetAccessToken, type SelfProfile } from '../api';
import { DeleteAccountModal } from './delete-account-modal';
import { PasswordModal } from './password-modal';

interface SecurityItemProps {
  icon: ReactNode;
  title: string;
  description: string;
  action: ReactNode;
  children?: ReactNode;
}

function SecurityItem({ icon, title, description, action, children }: SecurityItemProps) {
  return (
    <div className="mg-security-item">
      <div className="mg-security-head">
        <span className="mg-binding-icon">{icon}</span>
        <div className="mg-binding-text">
          <Typography.Text strong>{title}</Typography.Text>
          <Typography.Text type="tertiary" size="small">
            {description}
          </Typography.Text>
        </div>
        <div className="mg-binding-action">{action}</div>
      </div>
      {children}
    </div>
  );
}

/** System access token, password change and account deletion. */
export function SecurityCard({ profile }: { profile: SelfProfile }) {
  const { t } = useTranslation(['settings', 'common']);
  const [token, setToken] = useState('');
  const [resetting, setResetting] = useState(false);
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);

  const reset = async () => {
    setResetting(true);
    try {
      const fresh = await resetAccessToken();
      setToken(fresh);
      // Copy failure opens the manual-copy modal; the token also stays visible below.
      await copyWithFeedback(fresh, t('settings:security.tokenResetSuccess'));
    } catch {
      /* the API client showed why */
    } finally {
      setResetting(false);
    }
  };

  return (
    <Card
      className="mg-settings-card"
      title={
        <span className="mg-card-title">
          <IconShield /> {t('settings:security.title')}
        </span>
      }
    >
      <div className="mg-security">
        <SecurityItem
          icon={<IconKey />}
          title={t('settings:security.tokenTitle')}
          description={t('settings:security.tokenDescription')}
          action={
            <Popconfirm
              title={t('settings:security.tokenConfirm')}
              onConfirm={() => void reset()}
              okText={t('common:actions.confirm')}
              cancelText={t('common:actions.cancel')}
            >
              <Button size="small" theme="light" type="primary" loading={resetting}>
                {t('settings:security.tokenReset')}
              </Button>
            </Popconfirm>
          }
        >
          {token && (
            <div className="mg-copy-row">
              <Input readonly value={token} className="mg-mono" aria-label={t('settings:security.tokenTitle')} data-testid="access-token" />
              <Button icon={<IconCopy />} onClick={() => void copyWithFeedback(token)}>
                {t('common:actions.copy')}
              </Button>
            </div>
          )}
        </SecurityItem>
        <SecurityItem
          icon={<IconLock />}
          title={t('settings:security.passwordTitle')}
          description={t('settings:security.passwordDescription')}
          action={
            <Button size="small" theme="light" type="primary" onClick={() => setPasswordOpen(true)}>
              {t('settings:security.passwordButton')}
            </Button>
          }
        />
        <SecurityItem
          icon={<IconDelete />}
          title={t('settings:security.deleteTitle')}
          description={t('settings:security.deleteDescription')}
          action={
            <Button size="small" theme="light" type="danger" onClick={() => setDeleteOpen(true)}>
              {t('settings:security.deleteButton')}
            </Button>
          }
        />
      </div>
      <PasswordModal visible={passwordOpen} onClose={() => setPasswordOpen(false)} />
      <DeleteAccountModal visible={deleteOpen} username={profile.username} onClose={() => setDeleteOpen(false)} />
    </Card>
  );
}

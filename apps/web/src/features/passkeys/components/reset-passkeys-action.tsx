import { Button, Popconfirm, Toast } from '@douyinfe/semi-ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { resetUserPasskeys } from '../api';

/** 重置通行密钥 in the users list (administrators), after a confirmation. */
export function ResetPasskeysAction({ userId, disabled }: { userId: number; disabled?: boolean }) {
  const { t } = useTranslation(['passkeys', 'common']);
  const [busy, setBusy] = useState(false);

  const reset = async () => {
    setBusy(true);
    try {
      await resetUserPasskeys(userId);
      Toast.success(t('admin.resetDone'));
    } catch {
      /* the API client showed the server's reason (no passkey, no right) */
    } finally {
      setBusy(false);
    }
  };

  return (
    <Popconfirm
      title={t('admin.resetTitle')}
      content={t('admin.resetContent')}
      okType="danger"
      okText={t('common:actions.confirm')}
      cancelText={t('common:actions.cancel')}
      onConfirm={() => void reset()}
    >
      <Button size="small" theme="light" type="tertiary" disabled={disabled || busy} loading={busy}>
        {t('admin.reset')}
      </Button>
    </Popconfirm>
  );
}

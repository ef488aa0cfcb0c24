import { Dropdown, Modal, Toast } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { resetUserPasskeys } from '../api';

/** 重置通行密钥 in a user row's "more" menu (administrators), after a confirmation. */
export function ResetPasskeysItem({ userId, disabled }: { userId: number; disabled?: boolean }) {
  const { t } = useTranslation(['passkeys', 'common']);

  const reset = async () => {
    try {
      await resetUserPasskeys(userId);
      Toast.success(t('admin.resetDone'));
    } catch {
      /* the API client showed the server's reason (no passkey, no right) */
    }
  };

  return (
    <Dropdown.Item
      disabled={disabled}
      onClick={() =>
        Modal.confirm({
          title: t('admin.resetTitle'),
          content: t('admin.resetContent'),
          okText: t('common:actions.confirm'),
          cancelText: t('common:actions.cancel'),
          okButtonProps: { type: 'danger', theme: 'solid' },
          centered: true,
          onOk: reset,
        })
      }
    >
      {t('admin.reset')}
    </Dropdown.Item>
  );
}

import { Descriptions, Modal, Spin } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../../lib/quota';
import { useManagedUser } from '../../users/queries';

/** Spec 02 §2: an admin's click on a username shows username, quota, used quota and request count. */
export function UserInfoModal({ userId, onClose }: { userId: number | null; onClose: () => void }) {
  const { t } = useTranslation('logs');
  const formatQuota = useQuotaFormatter();
  const user = useManagedUser(userId);
  return (
    <Modal title={t('userInfo.title')} visible={userId !== null} onCancel={onClose} footer={null} data-testid="log-user-info">
      {user.data ? (
        <div data-testid="log-user-info-body">
          <Descriptions
            data={[
              { key: t('userInfo.username'), value: user.data.username },
              { key: t('userInfo.quota'), value: formatQuota(user.data.quota) },
              { key: t('userInfo.usedQuota'), value: formatQuota(user.data.used_quota) },
              { key: t('userInfo.requestCount'), value: user.data.request_count },
            ]}
          />
        </div>
      ) : (
        <Spin />
      )}
    </Modal>
  );
}

import { InputNumber, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { modalButtonLabels } from '../../../lib/modal-labels';
import { formatQuota, quotaPerUnit } from '../../../lib/quota';
import { useStatus } from '../../status/queries';
import { transferAffQuota } from '../api';
import { useRefreshSelf } from '../queries';

interface AffTransferModalProps {
  visible: boolean;
  /** Referral earnings not yet moved to the balance. */
  available: number;
  onClose: () => void;
}

/** Moves referral earnings to the balance; at least one quota unit (spec 01 §5). */
export function AffTransferModal({ visible, available, onClose }: AffTransferModalProps) {
  const { t } = useTranslation(['settings', 'common']);
  const status = useStatus();
  const refreshSelf = useRefreshSelf();
  const [amount, setAmount] = useState<number>(available);
  const [submitting, setSubmitting] = useState(false);
  const minimum = quotaPerUnit(status);

  useEffect(() => {
    if (visible) setAmount(available);
  }, [visible, available]);

  const submit = async () => {
    if (!Number.isSafeInteger(amount) || amount < minimum) {
      Toast.warning(t('transfer.minimum', { amount: formatQuota(minimum, status) }));
      return;
    }
    if (amount > available) {
      Toast.warning(t('transfer.insufficient'));
      return;
    }
    setSubmitting(true);
    try {
      await transferAffQuota(amount);
      Toast.success(t('transfer.success'));
      await refreshSelf();
      onClose();
    } catch {
      /* the API client showed the server's reason */
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal
      title={t('transfer.title')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('transfer.submit')}
      cancelText={t('common:actions.cancel')}
      {...modalButtonLabels(t('transfer.submit'), t('common:actions.cancel'))}
      confirmLoading={submitting}
      centered
    >
      <div className="mg-modal-fields">
        <Typography.Text>
          {t('transfer.available')}: <Typography.Text strong>{formatQuota(available, status)}</Typography.Text>
        </Typography.Text>
        <label className="mg-field-label" htmlFor="mg-aff-amount">
          {t('transfer.amount')}
        </label>
        <InputNumber
          id="mg-aff-amount"
          value={amount}
          onChange={(value) => setAmount(typeof value === 'number' ? Math.trunc(value) : 0)}
          min={0}
          precision={0}
          style={{ width: '100%' }}
        />
        <Typography.Text type="tertiary" size="small">
          {t('transfer.amountHint', { amount: formatQuota(amount || 0, { ...status, display_in_currency: true }) })} ·{' '}
          {t('transfer.minimum', { amount: formatQuota(minimum, status) })}
        </Typography.Text>
      </div>
    </Modal>
  );
}

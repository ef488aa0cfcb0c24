import { InputNumber, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { modalButtonLabels } from '../../../lib/modal-labels';
import { useQuotaFormatter } from '../../../lib/quota';
import { addUserQuota } from '../api';

interface AddQuotaModalProps {
  visible: boolean;
  userId: number;
  /** The balance as last read from the server: the amount is added to this, not to an unsaved edit. */
  currentQuota: number;
  onClose: () => void;
  onApplied: (quota: number) => void;
}

/**
 * Spec 01 §2: add (or, with a negative number, subtract) quota; the preview reads "old + added = new".
 * The server applies it atomically and records a management log line.
 */
export function AddQuotaModal({ visible, userId, currentQuota, onClose, onApplied }: AddQuotaModalProps) {
  const { t } = useTranslation('users');
  const formatQuota = useQuotaFormatter();
  const [amount, setAmount] = useState<number | null>(null);
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    if (visible) setAmount(null);
  }, [visible]);

  const delta = amount ?? 0;
  const next = currentQuota + delta;

  const submit = async () => {
    if (!Number.isSafeInteger(delta) || delta === 0) {
      Toast.warning(t('quota.required'));
      return;
    }
    if (next < 0) {
      Toast.warning(t('quota.negativeResult'));
      return;
    }
    setSubmitting(true);
    try {
      const result = await addUserQuota(userId, delta);
      Toast.success(t('messages.done'));
      onApplied(result.quota);
      onClose();
    } catch {
      /* the API client showed the server's reason */
    } finally {
      setSubmitting(false);
    }
  };

  const preview = t(delta < 0 ? 'quota.previewSubtract' : 'quota.preview', {
    old: formatQuota(currentQuota),
    added: formatQuota(Math.abs(delta)),
    next: formatQuota(next),
  });

  return (
    <Modal
      title={t('quota.title')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('quota.submit')}
      cancelText={t('form.cancel')}
      {...modalButtonLabels(t('quota.submit'), t('form.cancel'))}
      confirmLoading={submitting}
      centered
      className="mg-add-quota-modal"
    >
      <div className="mg-add-quota">
        <Typography.Text type="tertiary">{t('quota.current', { value: formatQuota(currentQuota) })}</Typography.Text>
        <InputNumber
          value={amount ?? undefined}
          onChange={(value) => setAmount(typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null)}
          placeholder={t('quota.placeholder')}
          aria-label={t('quota.amount')}
          precision={0}
          style={{ width: '100%' }}
          onEnterPress={() => void submit()}
          autoFocus
        />
        <Typography.Text strong data-testid="quota-preview" type={next < 0 ? 'danger' : undefined}>
          {preview}
        </Typography.Text>
      </div>
    </Modal>
  );
}

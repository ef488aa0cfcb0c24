import { Form, Modal, Spin, Toast, Typography } from '@douyinfe/semi-ui';
import type { FormApi } from '@douyinfe/semi-ui/lib/es/form/interface';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../../lib/quota';
import type { Redemption } from '../api';
import { useCreateRedemptions, useRedemption, useUpdateRedemption } from '../queries';

/** Spec 02 §9: default quota 100000, count 1, at most 100 per batch, names of 1 to 20 characters. */
export const DEFAULT_REDEMPTION_QUOTA = 100_000;
export const MAX_REDEMPTIONS_PER_BATCH = 100;
export const MAX_REDEMPTION_NAME_LENGTH = 20;

interface FormValues {
  name?: string;
  quota?: number;
  count?: number;
}

interface RedemptionFormModalProps {
  /** null creates a batch; a row edits that code. */
  editing: Redemption | null;
  visible: boolean;
  onClose: () => void;
  onCreated: (keys: string[]) => void;
}

const isWholeNumber = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

export function RedemptionFormModal({ editing, visible, onClose, onCreated }: RedemptionFormModalProps) {
  const { t } = useTranslation('redemptions');
  const formatQuota = useQuotaFormatter();
  const formApi = useRef<FormApi<FormValues> | null>(null);
  const create = useCreateRedemptions();
  const update = useUpdateRedemption();
  // The row may be stale (another admin, another tab): edit what the server has now.
  const detail = useRedemption(visible && editing ? editing.id : null);
  const current = detail.data ?? editing;
  const submitting = create.isPending || update.isPending;

  const validateName = (value: unknown) => {
    const name = typeof value === 'string' ? value.trim() : '';
    if (name.length > MAX_REDEMPTION_NAME_LENGTH || (editing && name.length === 0)) return t('form.nameLength');
    return '';
  };
  const validateQuota = (value: unknown) => (isWholeNumber(value) && value > 0 ? '' : t('form.quotaInteger'));
  const validateCount = (value: unknown) => (isWholeNumber(value) && value >= 1 && value <= MAX_REDEMPTIONS_PER_BATCH ? '' : t('form.countRange'));

  const onSubmit = async (values: FormValues) => {
    const quota = values.quota ?? DEFAULT_REDEMPTION_QUOTA;
    const typedName = values.name?.trim() ?? '';
    try {
      if (editing) {
        await update.mutateAsync({ id: editing.id, name: typedName, quota });
        Toast.success(t('form.updated'));
        onClose();
        return;
      }
      // Spec 02 §5: an empty name becomes the formatted quota.
      const name = (typedName || formatQuota(quota)).slice(0, MAX_REDEMPTION_NAME_LENGTH);
      const keys = await create.mutateAsync({ name, quota, count: values.count ?? 1 });
      Toast.success(t('form.created'));
      onCreated(keys);
    } catch {
      // api-client has shown the server's reason; the form stays open for a correction.
    }
  };

  const waitingForDetail = editing !== null && detail.isPending;

  return (
    <Modal
      title={editing ? t('form.editTitle') : t('form.createTitle')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void formApi.current?.submitForm()}
      okText={t('form.submit')}
      cancelText={t('form.cancel')}
      okButtonProps={{ loading: submitting, disabled: waitingForDetail, 'data-testid': 'redemption-form-submit' } as object}
      maskClosable={false}
      centered
      closeOnEsc
    >
      {waitingForDetail ? (
        <div className="mg-redemption-form-loading">
          <Spin />
        </div>
      ) : (
        <Form<FormValues>
          key={current ? `edit-${current.id}-${current.quota}-${current.name}` : 'create'}
          getFormApi={(api) => {
            formApi.current = api;
          }}
          initValues={current ? { name: current.name, quota: current.quota } : { name: '', quota: DEFAULT_REDEMPTION_QUOTA, count: 1 }}
          onSubmit={(values) => void onSubmit(values)}
          labelPosition="top"
          className="mg-redemption-form"
        >
          {({ values }) => (
            <>
              <Form.Input
                field="name"
                label={t('form.name')}
                placeholder={t('form.namePlaceholder')}
                extraText={editing ? undefined : t('form.nameHint')}
                maxLength={MAX_REDEMPTION_NAME_LENGTH}
                showClear
                validate={validateName}
                data-testid="redemption-name"
              />
              <Form.InputNumber
                field="quota"
                label={t('form.quota')}
                placeholder={t('form.quotaPlaceholder')}
                precision={0}
                style={{ width: '100%' }}
                validate={validateQuota}
                extraText={
                  isWholeNumber(values.quota) && values.quota > 0 ? (
                    <Typography.Text type="tertiary">{t('form.quotaHint', { amount: formatQuota(values.quota) })}</Typography.Text>
                  ) : undefined
                }
                data-testid="redemption-quota"
              />
              {!editing && (
                <Form.InputNumber
                  field="count"
                  label={t('form.count')}
                  placeholder={t('form.countPlaceholder')}
                  precision={0}
                  style={{ width: '100%' }}
                  validate={validateCount}
                  data-testid="redemption-count"
                />
              )}
            </>
          )}
        </Form>
      )}
    </Modal>
  );
}

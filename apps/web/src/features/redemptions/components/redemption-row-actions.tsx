import { Button, Popconfirm, Popover, Space, Toast } from '@douyinfe/semi-ui';
import { RedemptionStatus } from '@modelgate/contract';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import type { Redemption } from '../api';
import { useDeleteRedemption, useSetRedemptionStatus } from '../queries';

interface RedemptionRowActionsProps {
  row: Redemption;
  onEdit: (row: Redemption) => void;
}

/** Spec 02 §4: edit only while unused; a used code cannot be enabled again. */
export function RedemptionRowActions({ row, onEdit }: RedemptionRowActionsProps) {
  const { t } = useTranslation('redemptions');
  const setStatus = useSetRedemptionStatus();
  const remove = useDeleteRedemption();
  const unused = row.status === RedemptionStatus.Unused;
  const busy = setStatus.isPending || remove.isPending;

  const changeStatus = (status: number) => setStatus.mutate({ id: row.id, status }, { onSuccess: () => Toast.success(t('operationDone')) });

  return (
    <Space spacing={4} className="mg-row-actions">
      <Popover content={<code className="mg-popover-key mg-mono">{row.key}</code>} position="top" trigger="click" showArrow>
        <Button size="small" theme="light" type="tertiary">
          {t('actions.view')}
        </Button>
      </Popover>
      <Button size="small" theme="light" type="primary" onClick={() => void copyWithFeedback(row.key)}>
        {t('actions.copy')}
      </Button>
      <Popconfirm
        title={t('deleteConfirm.title')}
        content={t('deleteConfirm.content')}
        okType="danger"
        position="left"
        onConfirm={() => remove.mutate(row.id, { onSuccess: () => Toast.success(t('operationDone')) })}
      >
        <Button size="small" theme="light" type="danger" disabled={busy}>
          {t('actions.delete')}
        </Button>
      </Popconfirm>
      {unused ? (
        <Button size="small" theme="light" type="warning" loading={setStatus.isPending} onClick={() => changeStatus(RedemptionStatus.Disabled)}>
          {t('actions.disable')}
        </Button>
      ) : (
        <Button
          size="small"
          theme="light"
          type="secondary"
          loading={setStatus.isPending}
          disabled={row.status === RedemptionStatus.Used}
          onClick={() => changeStatus(RedemptionStatus.Unused)}
        >
          {t('actions.enable')}
        </Button>
      )}
      <Button size="small" theme="light" type="tertiary" disabled={!unused} onClick={() => onEdit(row)}>
        {t('actions.edit')}
      </Button>
    </Space>
  );
}

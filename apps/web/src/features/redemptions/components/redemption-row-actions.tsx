import { Dropdown, Modal, Toast } from '@douyinfe/semi-ui';
import { RedemptionStatus } from '@modelgate/contract';
import { useTranslation } from 'react-i18next';
import { RowActionGroup, RowEditButton, RowMoreMenu, RowPrimaryButton, StatusToggleItem, useConfirmDelete } from '../../../components/shared/row-actions';
import { rethrowUnlessApiError } from '../../../lib/api-client';
import { copyWithFeedback } from '../../../lib/clipboard';
import { useNarrowScreen } from '../../../lib/use-narrow-screen';
import type { Redemption } from '../api';
import { useDeleteRedemption, useSetRedemptionStatus } from '../queries';

interface RedemptionRowActionsProps {
  row: Redemption;
  onEdit: (row: Redemption) => void;
}

/**
 * Copy (the main action) and edit, and under "more" view, enable/disable and delete (and edit, on a
 * phone). Spec 02 §4:
 * edit only while unused; a used code cannot be enabled again.
 */
export function RedemptionRowActions({ row, onEdit }: RedemptionRowActionsProps) {
  const { t } = useTranslation(['redemptions', 'common']);
  const setStatus = useSetRedemptionStatus();
  const remove = useDeleteRedemption();
  const confirmDelete = useConfirmDelete();
  const narrow = useNarrowScreen();
  const unused = row.status === RedemptionStatus.Unused;
  const busy = setStatus.isPending || remove.isPending;

  const changeStatus = (status: number) => setStatus.mutate({ id: row.id, status }, { onSuccess: () => Toast.success(t('operationDone')) });
  const view = () =>
    Modal.info({
      title: t('actions.view'),
      content: <code className="mg-popover-key mg-mono">{row.key}</code>,
      okText: t('common:actions.close'),
      hasCancel: false,
      centered: true,
    });

  return (
    <RowActionGroup>
      <RowPrimaryButton label={t('actions.copy')} onClick={() => void copyWithFeedback(row.key)} />
      {!narrow && <RowEditButton label={t('actions.edit')} disabled={!unused} onClick={() => onEdit(row)} />}
      <RowMoreMenu label={t('actions.more')} loading={busy} testId={`redemption-more-${row.id}`}>
        {narrow && (
          <Dropdown.Item disabled={!unused} onClick={() => onEdit(row)}>
            {t('actions.edit')}
          </Dropdown.Item>
        )}
        <Dropdown.Item onClick={view}>{t('actions.view')}</Dropdown.Item>
        <StatusToggleItem
          enabled={unused}
          disabled={row.status === RedemptionStatus.Used}
          labels={{ enable: t('actions.enable'), disable: t('actions.disable') }}
          onClick={() => changeStatus(unused ? RedemptionStatus.Disabled : RedemptionStatus.Unused)}
        />
        <Dropdown.Divider />
        <Dropdown.Item
          type="danger"
          onClick={() =>
            confirmDelete({
              title: t('deleteConfirm.title'),
              content: t('deleteConfirm.content'),
              onOk: () =>
                remove
                  .mutateAsync(row.id)
                  .then(() => void Toast.success(t('operationDone')))
                  .catch(rethrowUnlessApiError),
            })
          }
        >
          {t('actions.delete')}
        </Dropdown.Item>
      </RowMoreMenu>
    </RowActionGroup>
  );
}

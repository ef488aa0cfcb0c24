import { Button, Dropdown, Modal, Toast, Tooltip } from '@douyinfe/semi-ui';
import { UserStatus } from '@modelgate/contract';
import { cloneElement, type ReactElement, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { disableUserTwoFactor, manageUser, type ManageAction, type ManagedUser } from '../api';
import { ResetPasskeysItem } from '../../passkeys/components/reset-passkeys-action';
import { RowActionGroup, RowMoreMenu, RowPrimaryButton } from '../../../components/shared/row-actions';
import { useInvalidateUsers, usePatchUserRow } from '../queries';
import { useSessionUser } from '../../../lib/session';
import { denyReason, type RowAction } from '../user-action-rules';

/** Spec 01 §4: the status after which enable is shown but cannot be used. */
const ENABLE_BLOCKED_STATUS = 3;

interface UserRowActionsProps {
  user: ManagedUser;
  onEdit: (user: ManagedUser) => void;
}

/**
 * Edit (the main action), disable or enable, and under "more" promote, demote, turn off 2FA, reset
 * passkeys and delete (spec 01 §4). What the viewer may do to whom
 * is decided by the server (spec 01 §6); an action it would refuse (root's own row, an administrator
 * on another administrator) is disabled here with the reason as a tooltip.
 */
export function UserRowActions({ user, onEdit }: UserRowActionsProps) {
  const { t } = useTranslation(['users', 'common', 'security']);
  const patchRow = usePatchUserRow();
  const invalidate = useInvalidateUsers();
  const [pending, setPending] = useState<ManageAction | '2fa' | null>(null);
  const actorRole = useSessionUser()?.role ?? 0;

  const run = async (action: ManageAction) => {
    setPending(action);
    try {
      const result = await manageUser(user.id, action);
      Toast.success(t('messages.done'));
      if (action === 'delete') {
        await invalidate();
      } else {
        patchRow(user.id, { status: result.status, role: result.role, quota: result.quota });
      }
    } catch {
      /* the API client showed the server's reason */
    } finally {
      setPending(null);
    }
  };

  const turnOffTwoFactor = async () => {
    setPending('2fa');
    try {
      await disableUserTwoFactor(user.id);
      Toast.success(t('security:users.disabled'));
      patchRow(user.id, { two_fa_enabled: false });
    } catch {
      /* the API client showed the server's reason */
    } finally {
      setPending(null);
    }
  };

  const busy = pending !== null;
  const confirmThen = (title: string, content: string, work: () => Promise<void>, danger = false) =>
    Modal.confirm({
      title,
      content,
      okText: t('common:actions.confirm'),
      cancelText: t('common:actions.cancel'),
      okButtonProps: danger ? { type: 'danger', theme: 'solid' } : undefined,
      centered: true,
      onOk: work,
    });
  /** The reason the server would refuse `action` to this viewer, or null. */
  const denied = (action: RowAction) => denyReason(actorRole, user, action);
  /** The action's button, or, when the server would refuse it, the same button disabled with the reason. */
  const guardedButton = (action: RowAction, button: ReactElement<{ disabled?: boolean }>) => {
    const reason = denied(action);
    if (reason === null) return button;
    return (
      <Tooltip content={t(`denied.${reason}`)}>
        <span className="mg-user-action-denied" data-testid={`user-action-denied-${action}`}>
          {cloneElement(button, { disabled: true })}
        </span>
      </Tooltip>
    );
  };
  /** A "more" menu item, disabled with the reason when the server would refuse it. */
  const guardedItem = (action: RowAction, label: string, onClick: () => void, type?: 'danger') => {
    const reason = denied(action);
    if (reason === null) {
      return (
        <Dropdown.Item type={type} disabled={busy} onClick={onClick} data-testid={`user-action-${action}`}>
          {label}
        </Dropdown.Item>
      );
    }
    return (
      <Tooltip content={t(`denied.${reason}`)} position="left">
        <span className="mg-user-action-denied" data-testid={`user-action-denied-${action}`}>
          <Dropdown.Item disabled>{label}</Dropdown.Item>
        </span>
      </Tooltip>
    );
  };

  return (
    <RowActionGroup>
      {guardedButton('edit', <RowPrimaryButton label={t('actions.edit')} disabled={busy} onClick={() => onEdit(user)} />)}
      {user.status === UserStatus.Enabled
        ? guardedButton(
            'disable',
            <Button size="small" theme="light" type="tertiary" disabled={busy} loading={pending === 'disable'} onClick={() => void run('disable')}>
              {t('actions.disable')}
            </Button>,
          )
        : guardedButton(
            'enable',
            <Button
              size="small"
              theme="light"
              type="tertiary"
              disabled={busy || user.status === ENABLE_BLOCKED_STATUS}
              loading={pending === 'enable'}
              onClick={() => void run('enable')}
            >
              {t('actions.enable')}
            </Button>,
          )}
      <RowMoreMenu
        label={t('actions.more')}
        loading={pending === 'promote' || pending === 'demote' || pending === 'delete' || pending === '2fa'}
        testId={`user-more-${user.id}`}
      >
        {guardedItem('promote', t('actions.promote'), () => confirmThen(t('confirm.promoteTitle'), t('confirm.promoteContent'), () => run('promote')))}
        {guardedItem('demote', t('actions.demote'), () => confirmThen(t('confirm.demoteTitle'), t('confirm.demoteContent'), () => run('demote')))}
        {user.two_fa_enabled && (
          <Dropdown.Item
            disabled={busy}
            onClick={() => confirmThen(t('security:users.disableTitle'), t('security:users.disableContent'), turnOffTwoFactor, true)}
            data-testid="user-disable-2fa"
          >
            {t('security:users.disable')}
          </Dropdown.Item>
        )}
        <ResetPasskeysItem userId={user.id} disabled={busy || denied('edit') !== null} />
        <Dropdown.Divider />
        {guardedItem(
          'delete',
          t('actions.delete'),
          () => confirmThen(t('confirm.deleteTitle'), t('confirm.deleteContent'), () => run('delete'), true),
          'danger',
        )}
      </RowMoreMenu>
    </RowActionGroup>
  );
}

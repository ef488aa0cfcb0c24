import { Button, Popconfirm, Space, Toast, Tooltip } from '@douyinfe/semi-ui';
import { UserStatus } from '@modelgate/contract';
import { type ReactElement, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { disableUserTwoFactor, manageUser, type ManageAction, type ManagedUser } from '../api';
import { ResetPasskeysAction } from '../../passkeys/components/reset-passkeys-action';
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
 * Promote, demote, disable or enable, edit and delete (spec 01 §4). What the viewer may do to whom
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
  const confirmProps = { okText: t('common:actions.confirm'), cancelText: t('common:actions.cancel') };
  /** The action's button, or, when the server would refuse it, the same button disabled with the reason. */
  const guarded = (action: RowAction, button: ReactElement<{ disabled?: boolean }>, wrap: (b: ReactElement) => ReactElement = (b) => b) => {
    const reason = denyReason(actorRole, user, action);
    if (reason === null) return wrap(button);
    return (
      <Tooltip content={t(`denied.${reason}`)}>
        <span className="mg-user-action-denied" data-testid={`user-action-denied-${action}`}>
          <Button {...button.props} disabled />
        </span>
      </Tooltip>
    );
  };

  return (
    <Space spacing={4} wrap className="mg-user-actions">
      {guarded(
        'promote',
        <Button size="small" theme="light" type="warning" disabled={busy} loading={pending === 'promote'}>
          {t('actions.promote')}
        </Button>,
        (b) => (
          <Popconfirm title={t('confirm.promoteTitle')} content={t('confirm.promoteContent')} onConfirm={() => run('promote')} {...confirmProps}>
            {b}
          </Popconfirm>
        ),
      )}
      {guarded(
        'demote',
        <Button size="small" theme="light" type="secondary" disabled={busy} loading={pending === 'demote'}>
          {t('actions.demote')}
        </Button>,
        (b) => (
          <Popconfirm title={t('confirm.demoteTitle')} content={t('confirm.demoteContent')} onConfirm={() => run('demote')} {...confirmProps}>
            {b}
          </Popconfirm>
        ),
      )}
      {user.status === UserStatus.Enabled
        ? guarded(
            'disable',
            <Button size="small" theme="light" type="warning" disabled={busy} loading={pending === 'disable'} onClick={() => void run('disable')}>
              {t('actions.disable')}
            </Button>,
          )
        : guarded(
            'enable',
            <Button
              size="small"
              theme="light"
              type="secondary"
              disabled={busy || user.status === ENABLE_BLOCKED_STATUS}
              loading={pending === 'enable'}
              onClick={() => void run('enable')}
            >
              {t('actions.enable')}
            </Button>,
          )}
      {guarded(
        'edit',
        <Button size="small" theme="light" type="tertiary" disabled={busy} onClick={() => onEdit(user)}>
          {t('actions.edit')}
        </Button>,
      )}
      {user.two_fa_enabled && (
        <Popconfirm
          title={t('security:users.disableTitle')}
          content={t('security:users.disableContent')}
          okType="danger"
          onConfirm={() => turnOffTwoFactor()}
          {...confirmProps}
        >
          <Button size="small" theme="light" type="warning" disabled={busy} loading={pending === '2fa'} data-testid="user-disable-2fa">
            {t('security:users.disable')}
          </Button>
        </Popconfirm>
      )}
      <ResetPasskeysAction userId={user.id} disabled={busy || denyReason(actorRole, user, 'edit') !== null} />
      {guarded(
        'delete',
        <Button size="small" theme="light" type="danger" disabled={busy} loading={pending === 'delete'}>
          {t('actions.delete')}
        </Button>,
        (b) => (
          <Popconfirm title={t('confirm.deleteTitle')} content={t('confirm.deleteContent')} okType="danger" onConfirm={() => run('delete')} {...confirmProps}>
            {b}
          </Popconfirm>
        ),
      )}
    </Space>
  );
}

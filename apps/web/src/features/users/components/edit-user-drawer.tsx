import { Button, Empty, Form, SideSheet, Spin, Tag, Toast, Typography } from '@douyinfe/semi-ui';
import type { FormApi } from '@douyinfe/semi-ui/lib/es/form';
import { useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RateLimitFields } from '../../../components/shared/rate-limit-fields';
import { formatQuota } from '../../../lib/quota';
import { rateLimitFormValues, rateLimitInput, type RateLimitFormValues } from '../../../lib/rate-limits';
import { selfKeys } from '../../auth/queries';
import { useStatus } from '../../status/queries';
import { updateSelf, updateUser, type ManagedUser } from '../api';
import { useGroupRatios, useGroups, useInvalidateUsers, useManagedUser, usePatchUserRow, type EditTarget } from '../queries';
import { AddQuotaModal } from './add-quota-modal';
import { DrawerFooter, drawerWidth } from './drawer-footer';
import { passwordRules, usernameRules } from './password-rules';
import { groupRatioColor } from './user-tags';

interface EditUserDrawerProps {
  /** null: closed. */
  target: EditTarget | null;
  onClose: () => void;
}

interface EditValues extends RateLimitFormValues {
  username?: string;
  display_name?: string;
  password?: string;
  original_password?: string;
  group?: string;
  quota?: number;
}

const BINDINGS = [
  ['github_id', 'form.github'],
  ['wechat_id', 'form.wechat'],
  ['email', 'form.email'],
  ['telegram_id', 'form.telegram'],
  ['linux_do_id', 'form.linuxdo'],
] as const satisfies ReadonlyArray<readonly [keyof ManagedUser, string]>;

/**
 * Edits a user (PUT /api/user/) or, at /user/edit, the signed-in admin's own account
 * (PUT /api/user/self). Bindings are read-only (spec 01 §5); the password is optional.
 */
export function EditUserDrawer({ target, onClose }: EditUserDrawerProps) {
  const { t } = useTranslation('users');
  const user = useManagedUser(target);
  const self = target === 'self';

  return (
    <SideSheet
      title={t(self ? 'form.selfTitle' : 'form.editTitle')}
      visible={target !== null}
      onCancel={onClose}
      width={drawerWidth()}
      placement="right"
      className="mg-user-drawer"
      footer={null}
    >
      {user.isPending && target !== null ? (
        <div className="mg-drawer-loading">
          <Spin size="large" />
        </div>
      ) : user.data ? (
        <EditUserForm key={user.data.id} user={user.data} self={self} onClose={onClose} />
      ) : (
        <Empty description={t('messages.loadFailed')} />
      )}
    </SideSheet>
  );
}

interface EditUserFormProps {
  user: ManagedUser;
  self: boolean;
  onClose: () => void;
}

function EditUserForm({ user, self, onClose }: EditUserFormProps) {
  const { t } = useTranslation('users');
  const status = useStatus();
  const queryClient = useQueryClient();
  const groups = useGroups();
  const ratios = useGroupRatios();
  const invalidate = useInvalidateUsers();
  const patchRow = usePatchUserRow();
  const formApi = useRef<FormApi<EditValues> | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [quotaModal, setQuotaModal] = useState(false);
  // The balance as stored: sent back only when the admin typed a different one, so the edit
  // never overwrites what requests consumed meanwhile.
  const [storedQuota, setStoredQuota] = useState(user.quota);
  const [quotaInput, setQuotaInput] = useState<number>(user.quota);

  useEffect(() => setStoredQuota(user.quota), [user.quota]);

  const groupNames = [...new Set([...(groups.data ?? []), user.group].filter(Boolean))];
  const groupOptions = groupNames.map((name) => {
    const ratio = ratios.data?.[name]?.ratio;
    return {
      value: name,
      label: (
        <span className="mg-group-option">
          {name}
          {ratio !== undefined && (
            <Tag size="small" color={groupRatioColor(ratio)}>
              ×{ratio}
            </Tag>
          )}
        </span>
      ),
    };
  });

  const submit = async (values: EditValues) => {
    setSubmitting(true);
    try {
      const username = values.username?.trim() ?? user.username;
      const displayName = values.display_name?.trim() ?? '';
      const password = values.password ?? '';
      if (self) {
        await updateSelf({ username, display_name: displayName, password, original_password: values.original_password ?? '' });
        await queryClient.invalidateQueries({ queryKey: selfKeys.all });
      } else {
        const quota = values.quota ?? storedQuota;
        if (!Number.isSafeInteger(quota) || quota < 0) {
          Toast.warning(t('messages.quotaInvalid'));
          return;
        }
        await updateUser({
          id: user.id,
          username,
          display_name: displayName,
          password,
          group: values.group ?? user.group,
          ...(quota !== storedQuota ? { quota } : {}),
          ...rateLimitInput(values),
        });
      }
      Toast.success(t('messages.updated'));
      await invalidate();
      onClose();
    } catch {
      /* the API client showed the server's reason */
    } finally {
      setSubmitting(false);
    }
  };

  const onQuotaApplied = (quota: number) => {
    setStoredQuota(quota);
    setQuotaInput(quota);
    formApi.current?.setValue('quota', quota);
    patchRow(user.id, { quota });
  };

  return (
    <div className="mg-user-drawer-body">
      <Form<EditValues>
        getFormApi={(api) => (formApi.current = api)}
        initValues={{
          username: user.username,
          display_name: user.display_name,
          password: '',
          group: user.group,
          quota: user.quota,
          ...rateLimitFormValues(user),
        }}
        onSubmit={(values) => void submit(values)}
        onValueChange={(values) => setQuotaInput(Number(values.quota ?? 0))}
        labelPosition="top"
        allowEmpty
      >
        <Form.Section text={t('form.basic')}>
          <Form.Input field="username" label={t('form.username')} placeholder={t('form.usernamePlaceholder')} rules={usernameRules(t)} />
          <Form.Input field="display_name" label={t('form.displayName')} placeholder={t('form.displayNamePlaceholder')} />
          <Form.Input
            field="password"
            mode="password"
            label={t('form.newPassword')}
            placeholder={t('form.newPasswordPlaceholder')}
            rules={passwordRules(t)}
            autoComplete="new-password"
          />
          {self && (
            <Form.Input
              field="original_password"
              mode="password"
              label={t('form.originalPassword')}
              placeholder={t('form.originalPasswordPlaceholder')}
              autoComplete="current-password"
            />
          )}
        </Form.Section>
        {!self && (
          <Form.Section text={t('form.permissions')}>
            <Form.Select
              field="group"
              label={t('form.group')}
              placeholder={t('form.groupPlaceholder')}
              optionList={groupOptions}
              loading={groups.isPending}
              filter
              style={{ width: '100%' }}
            />
            <div className="mg-quota-row">
              <Form.InputNumber
                field="quota"
                label={t('form.quota')}
                placeholder={t('form.quotaPlaceholder')}
                precision={0}
                min={0}
                style={{ width: '100%' }}
                extraText={t('form.quotaHint', { amount: formatQuota(quotaInput, { ...status, display_in_currency: true }) })}
              />
              <Button className="mg-quota-add" onClick={() => setQuotaModal(true)}>
                {t('actions.addQuota')}
              </Button>
            </div>
          </Form.Section>
        )}
        {!self && (
          <Form.Section text={t('form.rateLimits')}>
            <RateLimitFields testId="user-form-limits" />
          </Form.Section>
        )}
        <Form.Section text={t('form.bindings')}>
          <Typography.Text type="tertiary" size="small" className="mg-bindings-hint">
            {t('form.bindingsHint')}
          </Typography.Text>
          <dl className="mg-readonly-bindings">
            {BINDINGS.map(([field, label]) => (
              <Fragment key={field}>
                <dt>{t(label)}</dt>
                <dd>
                  <Typography.Text type={user[field] ? undefined : 'quaternary'}>{String(user[field] || t('form.notBound'))}</Typography.Text>
                </dd>
              </Fragment>
            ))}
          </dl>
        </Form.Section>
      </Form>
      <DrawerFooter submitting={submitting} onSubmit={() => formApi.current?.submitForm()} onCancel={onClose} />
      {!self && (
        <AddQuotaModal visible={quotaModal} userId={user.id} currentQuota={storedQuota} onClose={() => setQuotaModal(false)} onApplied={onQuotaApplied} />
      )}
    </div>
  );
}

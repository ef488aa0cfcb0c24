import { Form, SideSheet, Toast } from '@douyinfe/semi-ui';
import type { FormApi } from '@douyinfe/semi-ui/lib/es/form';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { createUser, type NewUser } from '../api';
import { useInvalidateUsers } from '../queries';
import { DrawerFooter, drawerWidth } from './drawer-footer';
import { passwordRules, usernameRules } from './password-rules';

interface AddUserDrawerProps {
  visible: boolean;
  onClose: () => void;
}

type AddUserValues = Partial<NewUser>;

export function AddUserDrawer({ visible, onClose }: AddUserDrawerProps) {
  const { t } = useTranslation('users');
  const formApi = useRef<FormApi<AddUserValues> | null>(null);
  const invalidate = useInvalidateUsers();
  const [submitting, setSubmitting] = useState(false);

  const submit = async (values: AddUserValues) => {
    const username = values.username?.trim() ?? '';
    const password = values.password ?? '';
    // Spec 01 §5: the admin form's one rule, in its own words.
    if (!username || !password) {
      Toast.warning(t('messages.required'));
      return;
    }
    setSubmitting(true);
    try {
      await createUser({ username, password, display_name: values.display_name?.trim() ?? '' });
      Toast.success(t('messages.created'));
      formApi.current?.reset();
      await invalidate();
      onClose();
    } catch {
      /* the API client showed the server's reason (e.g. the name is taken) */
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <SideSheet
      title={t('form.addTitle')}
      visible={visible}
      onCancel={onClose}
      width={drawerWidth()}
      placement="right"
      footer={<DrawerFooter submitting={submitting} onSubmit={() => formApi.current?.submitForm()} onCancel={onClose} />}
      className="mg-user-drawer"
    >
      <Form<AddUserValues> getFormApi={(api) => (formApi.current = api)} onSubmit={(values) => void submit(values)} labelPosition="top" allowEmpty>
        <Form.Input field="username" label={t('form.username')} placeholder={t('form.usernamePlaceholder')} rules={usernameRules(t)} />
        <Form.Input field="display_name" label={t('form.displayName')} placeholder={t('form.displayNamePlaceholder')} />
        <Form.Input
          field="password"
          mode="password"
          label={t('form.password')}
          placeholder={t('form.passwordPlaceholder')}
          rules={passwordRules(t)}
          autoComplete="new-password"
        />
      </Form>
    </SideSheet>
  );
}

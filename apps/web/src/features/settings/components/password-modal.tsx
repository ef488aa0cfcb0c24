import { Modal, Form, Toast } from '@douyinfe/semi-ui';
import type { FormApi } from '@douyinfe/semi-ui/lib/es/form';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@modelgate/contract';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { modalButtonLabels } from '../../../lib/modal-labels';
import { changePassword } from '../api';

interface PasswordValues {
  original_password?: string;
  password?: string;
  password2?: string;
}

interface PasswordModalProps {
  visible: boolean;
  onClose: () => void;
}

/**
 * PUT /api/user/self with the old and the new password. The old one may be empty: an account
 * created by a third-party sign-in has none, and the server decides whether it is needed.
 */
export function PasswordModal({ visible, onClose }: PasswordModalProps) {
  const { t } = useTranslation(['settings', 'common']);
  const formApi = useRef<FormApi<PasswordValues> | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const close = () => {
    formApi.current?.reset();
    onClose();
  };

  const submit = async (values: PasswordValues) => {
    const password = values.password ?? '';
    if (password !== (values.password2 ?? '')) {
      formApi.current?.setError('password2', t('password.mismatch'));
      Toast.warning(t('password.mismatch'));
      return;
    }
    setSubmitting(true);
    try {
      await changePassword(values.original_password ?? '', password);
      Toast.success(t('password.success'));
      close();
    } catch {
      /* the API client showed the server's reason (e.g. the old password is wrong) */
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal
      title={t('password.title')}
      visible={visible}
      onCancel={close}
      onOk={() => formApi.current?.submitForm()}
      okText={t('password.submit')}
      cancelText={t('common:actions.cancel')}
      {...modalButtonLabels(t('password.submit'), t('common:actions.cancel'))}
      confirmLoading={submitting}
      centered
      className="mg-password-modal"
    >
      <Form<PasswordValues> getFormApi={(api) => (formApi.current = api)} onSubmit={(values) => void submit(values)} labelPosition="top" allowEmpty>
        <Form.Input
          field="original_password"
          mode="password"
          label={t('password.original')}
          placeholder={t('password.originalPlaceholder')}
          extraText={t('password.originalHint')}
          autoComplete="current-password"
        />
        <Form.Input
          field="password"
          mode="password"
          label={t('password.new')}
          placeholder={t('password.newPlaceholder')}
          autoComplete="new-password"
          rules={[
            { required: true, message: t('password.required') },
            { min: PASSWORD_MIN_LENGTH, message: t('password.tooShort') },
            { max: PASSWORD_MAX_LENGTH, message: t('password.tooLong') },
          ]}
        />
        <Form.Input
          field="password2"
          mode="password"
          label={t('password.confirm')}
          placeholder={t('password.confirmPlaceholder')}
          autoComplete="new-password"
          rules={[
            { required: true, message: t('password.confirmRequired') },
            {
              validator: (_rule: unknown, value: unknown) => value === (formApi.current?.getValue('password') ?? ''),
              message: t('password.mismatch'),
            },
          ]}
        />
      </Form>
    </Modal>
  );
}

import { Banner, Input, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { modalButtonLabels } from '../../../lib/modal-labels';
import { clearSessionUser } from '../../../lib/session';
import { deleteSelf } from '../api';

interface DeleteAccountModalProps {
  visible: boolean;
  username: string;
  onClose: () => void;
}

/**
 * Self-deletion needs the username typed (spec 01 §5). The server deregisters the account, its
 * tokens stop working and it ends the session; the console then forgets the user and goes to /login.
 */
export function DeleteAccountModal({ visible, username, onClose }: DeleteAccountModalProps) {
  const { t } = useTranslation(['settings', 'common']);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState('');
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    if (visible) setTyped('');
  }, [visible]);

  const submit = async () => {
    if (typed.trim() !== username) {
      Toast.warning(t('deleteAccount.mismatch'));
      return;
    }
    setSubmitting(true);
    try {
      await deleteSelf();
      clearSessionUser();
      queryClient.removeQueries({ queryKey: ['user'] });
      Toast.success(t('deleteAccount.success'));
      onClose();
      navigate('/login', { replace: true });
    } catch {
      /* the API client showed the server's reason (a super administrator cannot delete itself) */
      setSubmitting(false);
    }
  };

  const labels = modalButtonLabels(t('deleteAccount.submit'), t('common:actions.cancel'));

  return (
    <Modal
      title={t('deleteAccount.title')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('deleteAccount.submit')}
      cancelText={t('common:actions.cancel')}
      okButtonProps={{ ...labels.okButtonProps, type: 'danger', disabled: typed.trim() === '' }}
      cancelButtonProps={labels.cancelButtonProps}
      confirmLoading={submitting}
      centered
    >
      <div className="mg-modal-fields">
        <Banner type="danger" closeIcon={null} description={t('deleteAccount.warning')} />
        <Typography.Text>{t('deleteAccount.prompt', { username })}</Typography.Text>
        <Input
          value={typed}
          onChange={setTyped}
          placeholder={t('deleteAccount.placeholder')}
          aria-label={t('deleteAccount.placeholder')}
          onEnterPress={() => void submit()}
        />
      </div>
    </Modal>
  );
}

import { Button, Input, Modal, Toast } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { VerificationCodeButton } from '../../auth/components/verification-code-button';
import { useTurnstile } from '../../auth/use-turnstile';
import { useStatus } from '../../status/queries';
import { bindEmail } from '../api';
import { useRefreshSelf } from '../queries';

interface EmailBindModalProps {
  visible: boolean;
  initialEmail: string;
  onClose: () => void;
}

/** Email + mailed code (the send button locks for 30 seconds), then GET /api/oauth/email/bind. */
export function EmailBindModal({ visible, initialEmail, onClose }: EmailBindModalProps) {
  const { t } = useTranslation('settings');
  const status = useStatus();
  const turnstile = useTurnstile(status);
  const refreshSelf = useRefreshSelf();
  const [email, setEmail] = useState(initialEmail);
  const [code, setCode] = useState('');
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    if (!visible) return;
    setEmail(initialEmail);
    setCode('');
  }, [visible, initialEmail]);

  const submit = async () => {
    const address = email.trim();
    if (!address) {
      Toast.warning(t('emailBind.emailRequired'));
      return;
    }
    if (!code.trim()) {
      Toast.warning(t('emailBind.codeRequired'));
      return;
    }
    setSubmitting(true);
    try {
      await bindEmail(address, code.trim());
      Toast.success(t('emailBind.success'));
      await refreshSelf();
      onClose();
    } catch {
      /* the API client showed the server's reason (wrong code, address taken ...) */
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal title={t('emailBind.title')} visible={visible} onCancel={onClose} footer={null} centered width={420}>
      <div className="mg-modal-fields">
        <label className="mg-field-label" htmlFor="mg-bind-email">
          {t('emailBind.email')}
        </label>
        <Input
          id="mg-bind-email"
          type="email"
          value={email}
          onChange={setEmail}
          placeholder={t('emailBind.emailPlaceholder')}
          suffix={<VerificationCodeButton getEmail={() => email.trim()} beforeSend={turnstile.ready} turnstileToken={turnstile.token} />}
        />
        <label className="mg-field-label" htmlFor="mg-bind-code">
          {t('emailBind.code')}
        </label>
        <Input id="mg-bind-code" value={code} onChange={setCode} placeholder={t('emailBind.codePlaceholder')} onEnterPress={() => void submit()} />
        {turnstile.widget}
        <Button theme="solid" type="primary" block loading={submitting} onClick={() => void submit()}>
          {t('emailBind.submit')}
        </Button>
      </div>
    </Modal>
  );
}

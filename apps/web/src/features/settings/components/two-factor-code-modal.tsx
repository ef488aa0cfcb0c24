import { Banner, Button, Input, Modal, Toast } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError } from '../../../lib/api-client';
import { BackupCodesView } from './backup-codes-view';

interface TwoFactorCodeModalProps {
  visible: boolean;
  title: string;
  hint: string;
  placeholder: string;
  submitText: string;
  danger?: boolean;
  /** Sends the code; answers new backup codes to show, or nothing when the modal just closes. */
  onSubmit: (code: string) => Promise<string[] | undefined>;
  onClose: () => void;
}

/** Asks one code (disable 2FA, new backup codes), then shows the new backup codes when there are some. */
export function TwoFactorCodeModal({ visible, title, hint, placeholder, submitText, danger, onSubmit, onClose }: TwoFactorCodeModalProps) {
  const { t } = useTranslation(['security', 'common']);
  const [code, setCode] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [codes, setCodes] = useState<string[] | null>(null);

  useEffect(() => {
    if (!visible) return;
    setCode('');
    setCodes(null);
  }, [visible]);

  const submit = async () => {
    if (code.trim() === '') {
      Toast.warning(t('login.required'));
      return;
    }
    setSubmitting(true);
    try {
      const fresh = await onSubmit(code.trim());
      if (fresh) setCodes(fresh);
      else onClose();
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal
      title={codes ? t('twoFactor.backupTitle') : title}
      visible={visible}
      onCancel={onClose}
      footer={null}
      centered
      width={440}
      className="mg-two-factor-modal"
    >
      {codes ? (
        <div className="mg-two-factor-setup">
          <BackupCodesView codes={codes} />
          <Button theme="solid" type="primary" block onClick={onClose}>
            {t('twoFactor.saved')}
          </Button>
        </div>
      ) : (
        <form
          className="mg-two-factor-setup"
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <Banner type={danger ? 'warning' : 'info'} closeIcon={null} description={hint} />
          <Input value={code} onChange={setCode} placeholder={placeholder} autoComplete="one-time-code" size="large" autoFocus data-testid="two-factor-code" />
          <Button
            htmlType="submit"
            theme="solid"
            type={danger ? 'danger' : 'primary'}
            block
            size="large"
            loading={submitting}
            data-testid="two-factor-code-submit"
          >
            {submitText}
          </Button>
        </form>
      )}
    </Modal>
  );
}

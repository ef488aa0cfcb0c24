import { Button, Input, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import type { TwoFactorSetup } from '@modelgate/contract';
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError } from '../../../lib/api-client';
import { enableTwoFactor } from '../api';
import { BackupCodesView } from './backup-codes-view';

interface TwoFactorSetupModalProps {
  /** The pending setup (POST /api/user/2fa/setup); null when closed. */
  setup: TwoFactorSetup | null;
  onClose: () => void;
  /** 2FA is on: the caller refreshes the status. */
  onEnabled: () => void;
}

/** Scan (or type) the secret, confirm with a first code, then the backup codes, shown once. */
export function TwoFactorSetupModal({ setup, onClose, onEnabled }: TwoFactorSetupModalProps) {
  const { t } = useTranslation(['security', 'common']);
  const [qr, setQr] = useState('');
  const [code, setCode] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [enabled, setEnabled] = useState(false);

  useEffect(() => {
    setCode('');
    setEnabled(false);
    setQr('');
    if (!setup) return;
    let current = true;
    QRCode.toDataURL(setup.qr_code_data, { margin: 1, width: 200 })
      .then((url) => current && setQr(url))
      .catch(() => current && setQr(''));
    return () => {
      current = false;
    };
  }, [setup]);

  const enable = async () => {
    const typed = code.replace(/\s/g, '');
    if (!/^\d{6}$/.test(typed)) {
      Toast.warning(t('twoFactor.codeRequired'));
      return;
    }
    setSubmitting(true);
    try {
      await enableTwoFactor(typed);
      Toast.success(t('twoFactor.enabledSuccess'));
      setEnabled(true);
      onEnabled();
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal
      title={enabled ? t('twoFactor.backupTitle') : t('twoFactor.setupTitle')}
      visible={setup !== null}
      onCancel={onClose}
      footer={null}
      centered
      width={480}
      maskClosable={false}
      className="mg-two-factor-modal"
    >
      {setup && !enabled && (
        <form
          className="mg-two-factor-setup"
          onSubmit={(event) => {
            event.preventDefault();
            void enable();
          }}
        >
          <Typography.Text strong>{t('twoFactor.scanStep')}</Typography.Text>
          <div className="mg-two-factor-qr">{qr && <img src={qr} alt={t('twoFactor.qrAlt')} width={200} height={200} />}</div>
          <Typography.Text type="tertiary" size="small">
            {t('twoFactor.manualEntry')}
          </Typography.Text>
          <Typography.Text copyable={{ content: setup.secret }} className="mg-mono mg-two-factor-secret" data-testid="two-factor-secret">
            {setup.secret}
          </Typography.Text>
          <Typography.Text strong>{t('twoFactor.codeStep')}</Typography.Text>
          <Input
            value={code}
            onChange={setCode}
            placeholder={t('twoFactor.codePlaceholder')}
            autoComplete="one-time-code"
            inputMode="numeric"
            maxLength={8}
            size="large"
            data-testid="two-factor-enable-code"
          />
          <Button htmlType="submit" theme="solid" type="primary" block size="large" loading={submitting} data-testid="two-factor-enable-submit">
            {t('twoFactor.confirmEnable')}
          </Button>
        </form>
      )}
      {setup && enabled && (
        <div className="mg-two-factor-setup">
          <BackupCodesView codes={setup.backup_codes} />
          <Button theme="solid" type="primary" block onClick={onClose} data-testid="two-factor-saved">
            {t('twoFactor.saved')}
          </Button>
        </div>
      )}
    </Modal>
  );
}

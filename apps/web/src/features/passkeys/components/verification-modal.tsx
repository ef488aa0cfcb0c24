import { Button, Divider, Input, Modal, Spin, Toast, Typography } from '@douyinfe/semi-ui';
import { IconKey } from '@douyinfe/semi-icons';
import type { VerificationMethod } from '@modelgate/contract';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api-client';
import { fetchVerifyStatus, verifyWithPassword } from '../api';
import { verifyWithPasskey } from '../passkey-ceremonies';

interface VerificationModalProps {
  visible: boolean;
  /** Called once the session is freshly verified (at once when it already is). */
  onVerified: () => void;
  onCancel: () => void;
}

/**
 * The security verification before adding or removing a passkey (GET /api/verify/status, then
 * POST /api/verify): the user's passkey or 2FA code when they have one, else the password.
 * A stand-in for the shared verification modal the 2FA work brings.
 */
export function VerificationModal({ visible, onVerified, onCancel }: VerificationModalProps) {
  const { t } = useTranslation(['passkeys', 'common']);
  const [methods, setMethods] = useState<VerificationMethod[] | null>(null);
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!visible) return;
    let cancelled = false;
    setMethods(null);
    setSecret('');
    fetchVerifyStatus()
      .then((status) => {
        if (cancelled) return;
        if (status.verified) onVerified();
        else setMethods(status.methods);
      })
      .catch(() => {
        if (!cancelled) onCancel();
      });
    return () => {
      cancelled = true;
    };
  }, [visible, onVerified, onCancel]);

  const run = async (proof: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await proof();
      Toast.success(t('verify.success'));
      onVerified();
    } catch {
      /* the API client or the ceremony showed why */
    } finally {
      setBusy(false);
    }
  };

  const submitSecret = (method: '2fa' | 'password') => {
    if (secret.trim() === '') {
      Toast.warning(t('verify.passwordRequired'));
      return;
    }
    void run(() => (method === 'password' ? verifyWithPassword(secret) : api.post('/api/verify', { method: '2fa', code: secret.trim() })));
  };

  const secretMethod = methods?.includes('2fa') ? '2fa' : methods?.includes('password') ? 'password' : null;

  return (
    <Modal title={t('verify.title')} visible={visible && methods !== null} onCancel={onCancel} footer={null} centered className="mg-verification-modal">
      {methods === null ? (
        <Spin />
      ) : (
        <div className="mg-verification">
          <Typography.Text type="tertiary">{t('verify.description')}</Typography.Text>
          {methods.includes('passkey') && (
            <Button icon={<IconKey />} theme="solid" type="primary" block loading={busy} onClick={() => void run(verifyWithPasskey)}>
              {t('verify.passkeyButton')}
            </Button>
          )}
          {methods.includes('passkey') && secretMethod && <Divider margin={8} />}
          {secretMethod && (
            <form
              className="mg-verification-form"
              onSubmit={(event) => {
                event.preventDefault();
                submitSecret(secretMethod);
              }}
            >
              <Input
                mode={secretMethod === 'password' ? 'password' : undefined}
                value={secret}
                onChange={setSecret}
                aria-label={t('verify.password')}
                placeholder={t('verify.passwordPlaceholder')}
                autoComplete={secretMethod === 'password' ? 'current-password' : 'one-time-code'}
              />
              <Button htmlType="submit" theme="light" type="primary" loading={busy}>
                {t('verify.passwordSubmit')}
              </Button>
            </form>
          )}
        </div>
      )}
    </Modal>
  );
}

import { Banner, Button, Input, Modal, RadioGroup, Radio, Spin, Typography } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError } from '../../lib/api-client';
import { fetchVerifyStatus, verifyIdentity, type VerificationMethod } from './api';
import { offeredMethods, type VerificationMethodUi } from './verification-methods';

interface SecurityVerificationModalProps {
  visible: boolean;
  onVerified: () => void;
  onCancel: () => void;
}

/**
 * "Prove it is you again" before a secret is read or an account secret changes: reads the user's
 * methods (GET /api/verify/status), offers them (a 2FA code, else the password) and posts the
 * proof to POST /api/verify.
 */
export function SecurityVerificationModal({ visible, onVerified, onCancel }: SecurityVerificationModalProps) {
  const { t } = useTranslation('security');
  const [methods, setMethods] = useState<VerificationMethodUi[] | null>(null);
  const [windowMinutes, setWindowMinutes] = useState(5);
  const [method, setMethod] = useState<VerificationMethod | null>(null);
  const [proof, setProof] = useState('');
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    if (!visible) return;
    let current = true;
    setMethods(null);
    setProof('');
    fetchVerifyStatus()
      .then((status) => {
        if (!current) return;
        const offered = offeredMethods(status.methods);
        setMethods(offered);
        setMethod(offered[0]?.method ?? null);
        setWindowMinutes(Math.max(1, Math.round(status.window_seconds / 60)));
      })
      .catch((error: unknown) => {
        rethrowUnlessApiError(error);
        if (current) onCancel();
      });
    return () => {
      current = false;
    };
  }, [visible, onCancel]);

  const chosen = methods?.find((ui) => ui.method === method);

  const submit = async () => {
    if (!chosen) return;
    if (chosen.input !== 'none' && proof.trim() === '') return;
    setSubmitting(true);
    try {
      if (chosen.run) await chosen.run();
      await verifyIdentity(chosen.method, chosen.input === 'none' ? '' : proof.trim());
      onVerified();
    } catch (error) {
      // A wrong code or password: the API client showed why, the modal stays open.
      rethrowUnlessApiError(error);
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal title={t('verify.title')} visible={visible} onCancel={onCancel} footer={null} centered width={420} className="mg-security-verification">
      <div data-testid="security-verification">
        {methods === null ? (
          <div className="mg-security-verification-loading">
            <Spin tip={t('verify.loading')} />
          </div>
        ) : (
          <form
            className="mg-security-verification-form"
            onSubmit={(event) => {
              event.preventDefault();
              void submit();
            }}
          >
            <Banner type="info" closeIcon={null} description={t('verify.description', { minutes: windowMinutes })} />
            {methods.length > 1 && (
              <RadioGroup
                type="button"
                value={method ?? undefined}
                onChange={(event) => {
                  setMethod(event.target.value as VerificationMethod);
                  setProof('');
                }}
                aria-label={t('verify.title')}
              >
                {methods.map((ui) => (
                  <Radio key={ui.method} value={ui.method}>
                    {t(`verify.methods.${ui.method}`)}
                  </Radio>
                ))}
              </RadioGroup>
            )}
            {chosen && chosen.input !== 'none' && (
              <label className="mg-security-verification-field">
                <Typography.Text strong>{chosen.input === 'password' ? t('verify.passwordLabel') : t('verify.codeLabel')}</Typography.Text>
                <Input
                  key={chosen.method}
                  mode={chosen.input === 'password' ? 'password' : undefined}
                  value={proof}
                  onChange={setProof}
                  autoFocus
                  size="large"
                  autoComplete={chosen.input === 'password' ? 'current-password' : 'one-time-code'}
                  placeholder={chosen.input === 'password' ? t('verify.passwordPlaceholder') : t('verify.codePlaceholder')}
                  data-testid="security-verification-input"
                />
              </label>
            )}
            <Button
              htmlType="submit"
              theme="solid"
              type="primary"
              block
              size="large"
              loading={submitting}
              disabled={!chosen}
              data-testid="security-verification-submit"
            >
              {chosen?.method === 'passkey' ? t('verify.run.passkey') : t('verify.submit')}
            </Button>
          </form>
        )}
      </div>
    </Modal>
  );
}

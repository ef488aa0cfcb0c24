import { Button, Card, Space, Spin, Tag, Toast, Typography } from '@douyinfe/semi-ui';
import { IconShield } from '@douyinfe/semi-icons';
import type { TwoFactorSetup } from '@modelgate/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError } from '../../../lib/api-client';
import { disableTwoFactor, regenerateBackupCodes, setupTwoFactor } from '../api';
import { useTwoFactorStatus } from '../queries';
import { TwoFactorCodeModal } from './two-factor-code-modal';
import { TwoFactorSetupModal } from './two-factor-setup-modal';

type CodeAction = 'disable' | 'regenerate';

/** 两步验证: status, turning it on (verification, QR, first code, backup codes), off, and new backup codes. */
export function TwoFactorCard() {
  const { t } = useTranslation(['security', 'common']);
  const status = useTwoFactorStatus();
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [starting, setStarting] = useState(false);
  const [codeAction, setCodeAction] = useState<CodeAction | null>(null);

  const start = async () => {
    setStarting(true);
    try {
      // Without a fresh verification the server answers VERIFICATION_REQUIRED: the modal asks, then this runs again.
      setSetup(await setupTwoFactor());
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setStarting(false);
    }
  };

  const submitCode = async (code: string): Promise<string[] | undefined> => {
    if (codeAction === 'regenerate') {
      const codes = await regenerateBackupCodes(code);
      Toast.success(t('twoFactor.regeneratedSuccess'));
      await status.refetch();
      return codes;
    }
    await disableTwoFactor(code);
    Toast.success(t('twoFactor.disabledSuccess'));
    await status.refetch();
    return undefined;
  };

  const enabled = status.data?.enabled === true;
  return (
    <Card
      className="mg-settings-card"
      title={
        <span className="mg-card-title">
          <IconShield /> {t('twoFactor.title')}
        </span>
      }
      data-testid="two-factor-card"
    >
      <div className="mg-two-factor">
        <Typography.Text type="tertiary">{t('twoFactor.description')}</Typography.Text>
        {status.isPending ? (
          <Spin />
        ) : (
          <>
            <Space wrap>
              <Tag color={enabled ? 'green' : 'grey'} data-testid="two-factor-state">
                {enabled ? t('twoFactor.enabled') : t('twoFactor.disabled')}
              </Tag>
              {enabled && status.data?.backup_codes_remaining !== undefined && (
                <Typography.Text type="tertiary" size="small">
                  {t('twoFactor.backupRemaining', { count: status.data.backup_codes_remaining })}
                </Typography.Text>
              )}
              {status.data?.locked && <Tag color="red">{t('twoFactor.locked')}</Tag>}
            </Space>
            <Space wrap>
              {enabled ? (
                <>
                  <Button theme="light" type="primary" onClick={() => setCodeAction('regenerate')} data-testid="two-factor-regenerate">
                    {t('twoFactor.regenerate')}
                  </Button>
                  <Button theme="light" type="danger" onClick={() => setCodeAction('disable')} data-testid="two-factor-disable">
                    {t('twoFactor.disable')}
                  </Button>
                </>
              ) : (
                <Button theme="solid" type="primary" loading={starting} onClick={() => void start()} data-testid="two-factor-enable">
                  {t('twoFactor.enable')}
                </Button>
              )}
            </Space>
          </>
        )}
      </div>
      <TwoFactorSetupModal setup={setup} onClose={() => setSetup(null)} onEnabled={() => void status.refetch()} />
      <TwoFactorCodeModal
        visible={codeAction !== null}
        title={codeAction === 'regenerate' ? t('twoFactor.regenerateTitle') : t('twoFactor.disableTitle')}
        hint={codeAction === 'regenerate' ? t('twoFactor.regenerateHint') : t('twoFactor.disableHint')}
        placeholder={codeAction === 'regenerate' ? t('twoFactor.codePlaceholder') : t('twoFactor.disableCodePlaceholder')}
        submitText={codeAction === 'regenerate' ? t('twoFactor.confirmRegenerate') : t('twoFactor.confirmDisable')}
        danger={codeAction === 'disable'}
        onSubmit={submitCode}
        onClose={() => setCodeAction(null)}
      />
    </Card>
  );
}

import { IconMail, IconSend } from '@douyinfe/semi-icons';
import { Banner, Button, Toast, Typography } from '@douyinfe/semi-ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { sendTestMail } from '../options/options-api';
import { useOptionCard } from '../options/use-option-card';
import { useSelfProfile } from '../queries';
import { SecretField, SwitchField, TextField } from './option-fields';
import { numberProblem, sslForcedByPort } from './system-rules';

const SMTP_KEYS = ['SMTPServer', 'SMTPPort', 'SMTPAccount', 'SMTPFrom', 'SMTPToken', 'SMTPSSLEnabled'] as const;

type TestResult = { kind: 'sent'; email: string } | { kind: 'failed'; message: string };

/**
 * The mail server, and a test mail to the signed-in administrator. The server sends it with the
 * SAVED settings, so unsaved edits are refused with a word to save first.
 */
export function SmtpCard() {
  const { t } = useTranslation('settings-system');
  const card = useOptionCard(SMTP_KEYS, {
    validate: (values) => (numberProblem(values.SMTPPort ?? '', { integer: true, min: 1, max: 65535 }) ? t('smtp.portInvalid') : null),
  });
  const profile = useSelfProfile().data;
  const email = profile?.email ?? '';
  // Until the profile is in, whether the admin has an address is unknown: neither warn nor block.
  const noEmail = profile !== undefined && email === '';
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<TestResult | null>(null);
  const forcedSsl = sslForcedByPort(card.value('SMTPPort'));

  const test = async () => {
    if (card.dirty) {
      Toast.warning(t('smtp.testDirty'));
      return;
    }
    setTesting(true);
    setResult(null);
    try {
      await sendTestMail();
      setResult({ kind: 'sent', email });
      Toast.success(t('smtp.testSent', { email }));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      setResult({ kind: 'failed', message });
      Toast.error(t('smtp.testFailed'));
    } finally {
      setTesting(false);
    }
  };

  let testHint = '';
  if (noEmail) testHint = t('smtp.testNoEmail');
  else if (card.dirty) testHint = t('smtp.testDirty');
  else if (email !== '') testHint = t('smtp.testHint', { email });

  return (
    <OptionCardFrame
      card={card}
      testId="system-smtp"
      icon={<IconMail />}
      title={t('smtp.title')}
      description={t('smtp.description')}
      actions={
        <Button icon={<IconSend />} loading={testing} disabled={profile === undefined || noEmail} onClick={() => void test()}>
          {t('smtp.test')}
        </Button>
      }
    >
      <div className="mg-option-grid">
        <TextField card={card} optionKey="SMTPServer" label={t('smtp.server')} placeholder={t('smtp.serverPlaceholder')} />
        <TextField
          card={card}
          optionKey="SMTPPort"
          label={t('smtp.port')}
          placeholder={t('smtp.portPlaceholder')}
          hint={t('smtp.portHint')}
          inputMode="numeric"
        />
        <TextField card={card} optionKey="SMTPAccount" label={t('smtp.account')} placeholder={t('smtp.accountPlaceholder')} />
        <TextField card={card} optionKey="SMTPFrom" label={t('smtp.from')} placeholder={t('smtp.fromPlaceholder')} />
        <SecretField card={card} optionKey="SMTPToken" label={t('smtp.token')} />
      </div>
      <div className="mg-system-switches mg-system-block">
        <SwitchField
          card={card}
          optionKey="SMTPSSLEnabled"
          label={t('smtp.ssl')}
          hint={forcedSsl ? t('smtp.sslForced') : t('smtp.sslHint')}
          checked={forcedSsl ? true : undefined}
          disabled={forcedSsl}
        />
      </div>
      {testHint && (
        <Typography.Text type={noEmail || card.dirty ? 'warning' : 'tertiary'} size="small" className="mg-system-note" data-testid="smtp-test-hint">
          {testHint}
        </Typography.Text>
      )}
      {result && (
        <div className="mg-system-banner" data-testid="smtp-test-result">
          <Banner
            type={result.kind === 'sent' ? 'success' : 'danger'}
            fullMode={false}
            bordered
            closeIcon={null}
            title={result.kind === 'sent' ? t('smtp.testSent', { email: result.email }) : t('smtp.testFailed')}
            description={result.kind === 'failed' ? result.message : undefined}
          />
        </div>
      )}
    </OptionCardFrame>
  );
}

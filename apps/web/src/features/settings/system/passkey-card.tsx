import { IconKey } from '@douyinfe/semi-icons';
import { Select } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { FieldFrame, SwitchField, TextField } from './option-fields';

const PASSKEY_KEYS = [
  'passkey.enabled',
  'passkey.rp_display_name',
  'passkey.rp_id',
  'passkey.origins',
  'passkey.allow_insecure_origin',
  'passkey.user_verification',
  'passkey.attachment_preference',
] as const;

const USER_VERIFICATION = ['preferred', 'required', 'discouraged'] as const;
const ATTACHMENTS = ['', 'platform', 'cross-platform'] as const;

/** Passkeys under new-api's `passkey.*` keys: the switch, the relying party and what the authenticator must do. */
export function PasskeyCard() {
  const { t } = useTranslation('passkeys');
  const card = useOptionCard(PASSKEY_KEYS);
  return (
    <OptionCardFrame card={card} testId="system-passkey" icon={<IconKey />} title={t('settings.title')} description={t('settings.description')}>
      <div style={{ marginBottom: 12, display: 'flex', flexDirection: 'column', gap: 8 }}>
        <SwitchField card={card} optionKey="passkey.enabled" label={t('settings.enabled')} hint={t('settings.enabledHint')} />
        <SwitchField card={card} optionKey="passkey.allow_insecure_origin" label={t('settings.allowInsecure')} hint={t('settings.allowInsecureHint')} />
      </div>
      <div className="mg-option-grid">
        <TextField card={card} optionKey="passkey.rp_display_name" label={t('settings.displayName')} placeholder={t('settings.displayNamePlaceholder')} />
        <TextField card={card} optionKey="passkey.rp_id" label={t('settings.rpId')} placeholder="example.com" hint={t('settings.rpIdHint')} />
        <TextField
          card={card}
          optionKey="passkey.origins"
          label={t('settings.origins')}
          placeholder="https://example.com"
          hint={t('settings.originsHint')}
          inputMode="url"
        />
        <FieldFrame label={t('settings.userVerification')} hint={t('settings.userVerificationHint')}>
          <Select
            aria-label={t('settings.userVerification')}
            value={card.value('passkey.user_verification')}
            onChange={(value) => card.set('passkey.user_verification', String(value))}
            optionList={USER_VERIFICATION.map((value) => ({ value, label: t(`settings.verification.${value}`) }))}
          />
        </FieldFrame>
        <FieldFrame label={t('settings.attachment')}>
          <Select
            aria-label={t('settings.attachment')}
            value={card.value('passkey.attachment_preference')}
            onChange={(value) => card.set('passkey.attachment_preference', String(value))}
            optionList={ATTACHMENTS.map((value) => ({ value, label: t(`settings.attachments.${value || 'any'}`) }))}
          />
        </FieldFrame>
      </div>
    </OptionCardFrame>
  );
}

import { IconFilter, IconUserSetting } from '@douyinfe/semi-icons';
import { Modal, TagInput, Toast, Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard, useOptions } from '../options/use-option-card';
import { FieldFrame, SwitchField } from './option-fields';
import { formatDomainList, parseDomainList, splitTypedDomains } from './system-rules';

const LOGIN_KEYS = [
  'PasswordLoginEnabled',
  'PasswordRegisterEnabled',
  'RegisterEnabled',
  'EmailVerificationEnabled',
  'GitHubOAuthEnabled',
  'LinuxDOOAuthEnabled',
  'WeChatAuthEnabled',
  'TelegramOAuthEnabled',
  'TurnstileCheckEnabled',
] as const;

const WHITELIST_KEYS = ['EmailDomainRestrictionEnabled', 'EmailAliasRestrictionEnabled', 'EmailDomainWhitelist'] as const;

/** Which sign-in and sign-up paths are open. Switching password login off asks first (spec 01 §4). */
export function LoginCard() {
  const { t } = useTranslation(['settings-system', 'common']);
  const card = useOptionCard(LOGIN_KEYS);
  const storedPasswordLogin = useOptions().data?.PasswordLoginEnabled;

  const togglePasswordLogin = (checked: boolean) => {
    if (checked) {
      card.set('PasswordLoginEnabled', true);
      return;
    }
    Modal.confirm({
      title: t('login.confirmTitle'),
      content: t('login.confirmContent'),
      okText: t('login.confirmOk'),
      cancelText: t('common:actions.cancel'),
      okButtonProps: { type: 'danger', theme: 'solid' },
      centered: true,
      onOk: () => card.set('PasswordLoginEnabled', false),
    });
  };

  const turningPasswordLoginOff = storedPasswordLogin === 'true' && !card.bool('PasswordLoginEnabled');
  const needsConfig = t('login.needsConfig');

  return (
    <OptionCardFrame card={card} testId="system-login" icon={<IconUserSetting />} title={t('login.title')} description={t('login.description')}>
      <div className="mg-system-switches">
        <SwitchField
          card={card}
          optionKey="PasswordLoginEnabled"
          label={t('login.passwordLogin')}
          hint={
            turningPasswordLoginOff ? (
              <Typography.Text type="danger" size="small">
                {t('login.confirmNote')}
              </Typography.Text>
            ) : (
              t('login.passwordLoginHint')
            )
          }
          onChange={togglePasswordLogin}
        />
        <SwitchField card={card} optionKey="PasswordRegisterEnabled" label={t('login.passwordRegister')} />
        <SwitchField card={card} optionKey="RegisterEnabled" label={t('login.register')} hint={t('login.registerHint')} />
        <SwitchField card={card} optionKey="EmailVerificationEnabled" label={t('login.emailVerification')} hint={t('login.emailVerificationHint')} />
        <SwitchField card={card} optionKey="GitHubOAuthEnabled" label={t('login.github')} hint={needsConfig} />
        <SwitchField card={card} optionKey="LinuxDOOAuthEnabled" label={t('login.linuxdo')} hint={needsConfig} />
        <SwitchField card={card} optionKey="WeChatAuthEnabled" label={t('login.wechat')} hint={needsConfig} />
        <SwitchField card={card} optionKey="TelegramOAuthEnabled" label={t('login.telegram')} hint={needsConfig} />
        <SwitchField card={card} optionKey="TurnstileCheckEnabled" label={t('login.turnstile')} hint={needsConfig} />
      </div>
    </OptionCardFrame>
  );
}

/** Which email domains may register, edited as tags and stored as a comma list. */
export function EmailWhitelistCard() {
  const { t } = useTranslation('settings-system');
  const card = useOptionCard(WHITELIST_KEYS, {
    validate: (values) =>
      values.EmailDomainRestrictionEnabled === 'true' && parseDomainList(values.EmailDomainWhitelist ?? '').length === 0 ? t('whitelist.emptyWhitelist') : null,
  });
  const domains = parseDomainList(card.value('EmailDomainWhitelist'));

  const change = (typed: string[]) => {
    const { valid, invalid } = splitTypedDomains(typed);
    if (invalid.length > 0) Toast.error(t('whitelist.invalidDomain', { domains: invalid.join(', ') }));
    card.set('EmailDomainWhitelist', formatDomainList(valid));
  };

  return (
    <OptionCardFrame card={card} testId="system-whitelist" icon={<IconFilter />} title={t('whitelist.title')} description={t('whitelist.description')}>
      <div className="mg-system-switches">
        <SwitchField card={card} optionKey="EmailDomainRestrictionEnabled" label={t('whitelist.restriction')} hint={t('whitelist.restrictionHint')} />
        <SwitchField card={card} optionKey="EmailAliasRestrictionEnabled" label={t('whitelist.alias')} hint={t('whitelist.aliasHint')} />
      </div>
      <div className="mg-system-block">
        <FieldFrame label={t('whitelist.domains')} hint={t('whitelist.domainsHint', { count: domains.length })}>
          <TagInput
            value={domains}
            onChange={change}
            separator={[',', '，', ' ']}
            addOnBlur
            allowDuplicates={false}
            showClear
            placeholder={t('whitelist.domainsPlaceholder')}
            aria-label={t('whitelist.domains')}
            data-testid="whitelist-domains"
          />
        </FieldFrame>
      </div>
    </OptionCardFrame>
  );
}

import { IconComment, IconGithubLogo, IconGlobe, IconSend, IconShield } from '@douyinfe/semi-icons';
import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard, useOptions } from '../options/use-option-card';
import { SecretField, TextField } from './option-fields';
import { oauthCallbackUrl } from './system-rules';

const GITHUB_KEYS = ['GitHubClientId', 'GitHubClientSecret'] as const;
const LINUXDO_KEYS = ['LinuxDOClientId', 'LinuxDOClientSecret'] as const;
const WECHAT_KEYS = ['WeChatServerAddress', 'WeChatServerToken', 'WeChatAccountQRCodeImageURL'] as const;
const TELEGRAM_KEYS = ['TelegramBotToken', 'TelegramBotName'] as const;
const TURNSTILE_KEYS = ['TurnstileSiteKey', 'TurnstileSecretKey'] as const;

function ExternalLink({ href, children }: { href: string; children: string }) {
  return (
    <Typography.Text link={{ href, target: '_blank', rel: 'noreferrer noopener' }} size="small">
      {children}
    </Typography.Text>
  );
}

/** What to register at the provider: the homepage and the callback built from the stored server address. */
function OAuthAddresses({ provider, manageUrl, manageText }: { provider: 'github' | 'linuxdo'; manageUrl: string; manageText: string }) {
  const { t } = useTranslation('settings-system');
  const serverAddress = useOptions().data?.ServerAddress;
  const callback = oauthCallbackUrl(serverAddress, provider);
  return (
    <div className="mg-system-info" data-testid={`${provider}-addresses`}>
      <ExternalLink href={manageUrl}>{manageText}</ExternalLink>
      {callback ? (
        <dl className="mg-system-pairs">
          <dt>{t('oauth.homepage')}</dt>
          <dd>
            <Typography.Text copyable className="mg-mono">
              {serverAddress?.replace(/\/+$/, '')}
            </Typography.Text>
          </dd>
          <dt>{t('oauth.callback')}</dt>
          <dd data-testid={`${provider}-callback`}>
            <Typography.Text copyable className="mg-mono">
              {callback}
            </Typography.Text>
          </dd>
        </dl>
      ) : (
        <Typography.Text type="warning" size="small">
          {t('oauth.noServerAddress')}
        </Typography.Text>
      )}
    </div>
  );
}

export function GitHubCard() {
  const { t } = useTranslation('settings-system');
  const card = useOptionCard(GITHUB_KEYS);
  return (
    <OptionCardFrame card={card} testId="system-github" icon={<IconGithubLogo />} title={t('github.title')} description={t('github.description')}>
      <OAuthAddresses provider="github" manageUrl="https://github.com/settings/developers" manageText={t('github.manage')} />
      <div className="mg-option-grid">
        <TextField card={card} optionKey="GitHubClientId" label={t('github.clientId')} placeholder={t('github.clientIdPlaceholder')} />
        <SecretField card={card} optionKey="GitHubClientSecret" label={t('github.clientSecret')} />
      </div>
    </OptionCardFrame>
  );
}

export function LinuxDOCard() {
  const { t } = useTranslation('settings-system');
  const card = useOptionCard(LINUXDO_KEYS);
  return (
    <OptionCardFrame card={card} testId="system-linuxdo" icon={<IconGlobe />} title={t('linuxdo.title')} description={t('linuxdo.description')}>
      <OAuthAddresses provider="linuxdo" manageUrl="https://connect.linux.do/" manageText={t('linuxdo.manage')} />
      <div className="mg-option-grid">
        <TextField card={card} optionKey="LinuxDOClientId" label={t('linuxdo.clientId')} placeholder={t('linuxdo.clientIdPlaceholder')} />
        <SecretField card={card} optionKey="LinuxDOClientSecret" label={t('linuxdo.clientSecret')} />
      </div>
    </OptionCardFrame>
  );
}

export function WeChatCard() {
  const { t } = useTranslation('settings-system');
  const card = useOptionCard(WECHAT_KEYS);
  const qrcode = card.value('WeChatAccountQRCodeImageURL').trim();
  return (
    <OptionCardFrame card={card} testId="system-wechat" icon={<IconComment />} title={t('wechat.title')} description={t('wechat.description')}>
      <div className="mg-system-info">
        <ExternalLink href="https://github.com/songquanpeng/wechat-server">{t('wechat.project')}</ExternalLink>
      </div>
      <div className="mg-option-grid">
        <TextField card={card} optionKey="WeChatServerAddress" label={t('wechat.address')} placeholder={t('wechat.addressPlaceholder')} inputMode="url" />
        <SecretField card={card} optionKey="WeChatServerToken" label={t('wechat.token')} />
        <TextField card={card} optionKey="WeChatAccountQRCodeImageURL" label={t('wechat.qrcode')} placeholder={t('wechat.qrcodePlaceholder')} inputMode="url" />
      </div>
      {/^https?:\/\//i.test(qrcode) && <img className="mg-system-qrcode" src={qrcode} alt={t('wechat.qrcodePreview')} />}
    </OptionCardFrame>
  );
}

export function TelegramCard() {
  const { t } = useTranslation('settings-system');
  const card = useOptionCard(TELEGRAM_KEYS);
  return (
    <OptionCardFrame card={card} testId="system-telegram" icon={<IconSend />} title={t('telegram.title')} description={t('telegram.description')}>
      <div className="mg-system-info">
        <Typography.Text type="tertiary" size="small">
          {t('telegram.hint')}
        </Typography.Text>
      </div>
      <div className="mg-option-grid">
        <SecretField card={card} optionKey="TelegramBotToken" label={t('telegram.token')} />
        <TextField card={card} optionKey="TelegramBotName" label={t('telegram.name')} placeholder={t('telegram.namePlaceholder')} />
      </div>
    </OptionCardFrame>
  );
}

export function TurnstileCard() {
  const { t } = useTranslation('settings-system');
  const card = useOptionCard(TURNSTILE_KEYS);
  return (
    <OptionCardFrame card={card} testId="system-turnstile" icon={<IconShield />} title={t('turnstile.title')} description={t('turnstile.description')}>
      <div className="mg-system-info">
        <ExternalLink href="https://dash.cloudflare.com/?to=/:account/turnstile">{t('turnstile.manage')}</ExternalLink>
      </div>
      <div className="mg-option-grid">
        <TextField card={card} optionKey="TurnstileSiteKey" label={t('turnstile.siteKey')} placeholder={t('turnstile.siteKeyPlaceholder')} />
        <SecretField card={card} optionKey="TurnstileSecretKey" label={t('turnstile.secretKey')} />
      </div>
    </OptionCardFrame>
  );
}

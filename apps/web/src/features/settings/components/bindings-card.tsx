import { Button, Card, Toast, Typography } from '@douyinfe/semi-ui';
import { IconGithubLogo, IconIdCard, IconLink, IconMail } from '@douyinfe/semi-icons';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchOAuthState, type TelegramAuthData } from '../../auth/api';
import { LinuxDoIcon, TelegramIcon, WeChatIcon } from '../../auth/components/brand-icons';
import { authorizeUrl, oidcAuthorizeUrl, oidcAvailable, type RedirectProvider } from '../../auth/components/oauth-buttons';
import { TelegramWidget } from '../../auth/components/telegram-login-button';
import { useStatus } from '../../status/queries';
import { bindTelegram, type SelfProfile } from '../api';
import { useRefreshSelf } from '../queries';
import { EmailBindModal } from './email-bind-modal';
import { WeChatBindModal } from './wechat-bind-modal';

interface BindingRowProps {
  icon: ReactNode;
  label: string;
  value: string;
  action: ReactNode;
  testId: string;
}

function BindingRow({ icon, label, value, action, testId }: BindingRowProps) {
  const { t } = useTranslation('settings');
  return (
    <div className="mg-binding-row" data-testid={testId}>
      <span className="mg-binding-icon">{icon}</span>
      <div className="mg-binding-text">
        <Typography.Text strong>{label}</Typography.Text>
        <Typography.Text type={value ? 'secondary' : 'quaternary'} size="small" ellipsis={{ showTooltip: true }}>
          {value || t('bindings.notBound')}
        </Typography.Text>
      </div>
      <div className="mg-binding-action">{action}</div>
    </div>
  );
}

/** Spec 01 §2 profile bindings; each third-party row exists only while its sign-in is enabled. */
export function BindingsCard({ profile }: { profile: SelfProfile }) {
  const { t } = useTranslation('settings');
  const status = useStatus();
  const refreshSelf = useRefreshSelf();
  const [emailOpen, setEmailOpen] = useState(false);
  const [wechatOpen, setWechatOpen] = useState(false);
  const [redirecting, setRedirecting] = useState<RedirectProvider | null>(null);

  const github = status.github_oauth === true && Boolean(status.github_client_id);
  const linuxdo = status.linuxdo_oauth === true && Boolean(status.linuxdo_client_id);
  const wechat = status.wechat_login === true;
  const telegram = status.telegram_oauth === true && Boolean(status.telegram_bot_name);
  const oidc = oidcAvailable(status);

  // Same round trip as the login page: the callback sees a signed-in session and binds instead.
  const redirect = async (provider: RedirectProvider, clientId: string) => {
    setRedirecting(provider);
    try {
      const state = await fetchOAuthState(null);
      window.location.assign(provider === 'oidc' ? oidcAuthorizeUrl(status, state) : authorizeUrl(provider, clientId, state));
    } catch {
      setRedirecting(null);
    }
  };

  const onTelegram = (auth: TelegramAuthData) => {
    bindTelegram(auth).then(
      () => {
        Toast.success(t('wechatBind.telegramSuccess'));
        void refreshSelf();
      },
      () => undefined,
    );
  };

  const boundButton = (
    <Button size="small" disabled>
      {t('bindings.bound')}
    </Button>
  );

  return (
    <Card
      className="mg-settings-card"
      title={
        <span className="mg-card-title">
          <IconLink /> {t('bindings.title')}
        </span>
      }
    >
      <div className="mg-bindings">
        <BindingRow
          testId="binding-email"
          icon={<IconMail />}
          label={t('bindings.email')}
          value={profile.email}
          action={
            <Button size="small" theme="light" type="primary" onClick={() => setEmailOpen(true)}>
              {profile.email ? t('bindings.changeEmail') : t('bindings.bindEmail')}
            </Button>
          }
        />
        {github && (
          <BindingRow
            testId="binding-github"
            icon={<IconGithubLogo />}
            label={t('bindings.github')}
            value={profile.github_id}
            action={
              profile.github_id ? (
                boundButton
              ) : (
                <Button
                  size="small"
                  theme="light"
                  type="primary"
                  loading={redirecting === 'github'}
                  onClick={() => void redirect('github', status.github_client_id ?? '')}
                >
                  {t('bindings.bind')}
                </Button>
              )
            }
          />
        )}
        {wechat && (
          <BindingRow
            testId="binding-wechat"
            icon={<WeChatIcon />}
            label={t('bindings.wechat')}
            value={profile.wechat_id}
            action={
              profile.wechat_id ? (
                boundButton
              ) : (
                <Button size="small" theme="light" type="primary" onClick={() => setWechatOpen(true)}>
                  {t('bindings.bind')}
                </Button>
              )
            }
          />
        )}
        {telegram && (
          <BindingRow
            testId="binding-telegram"
            icon={<TelegramIcon />}
            label={t('bindings.telegram')}
            value={profile.telegram_id}
            action={profile.telegram_id ? boundButton : <TelegramWidget botName={status.telegram_bot_name ?? ''} onAuth={onTelegram} />}
          />
        )}
        {linuxdo && (
          <BindingRow
            testId="binding-linuxdo"
            icon={<LinuxDoIcon />}
            label={t('bindings.linuxdo')}
            value={profile.linux_do_id}
            action={
              profile.linux_do_id ? (
                boundButton
              ) : (
                <Button
                  size="small"
                  theme="light"
                  type="primary"
                  loading={redirecting === 'linuxdo'}
                  onClick={() => void redirect('linuxdo', status.linuxdo_client_id ?? '')}
                >
                  {t('bindings.bind')}
                </Button>
              )
            }
          />
        )}
        {oidc && (
          <BindingRow
            testId="binding-oidc"
            icon={<IconIdCard />}
            label={t('bindings.oidc')}
            value={profile.oidc_id ?? ''}
            action={
              profile.oidc_id ? (
                boundButton
              ) : (
                <Button
                  size="small"
                  theme="light"
                  type="primary"
                  loading={redirecting === 'oidc'}
                  onClick={() => void redirect('oidc', status.oidc_client_id ?? '')}
                >
                  {t('bindings.bind')}
                </Button>
              )
            }
          />
        )}
      </div>
      <EmailBindModal visible={emailOpen} initialEmail={profile.email} onClose={() => setEmailOpen(false)} />
      {wechat && <WeChatBindModal visible={wechatOpen} qrCodeUrl={status.wechat_qrcode ?? ''} onClose={() => setWechatOpen(false)} />}
    </Card>
  );
}

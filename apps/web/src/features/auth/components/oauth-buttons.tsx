import { Button, Divider } from '@douyinfe/semi-ui';
import { IconGithubLogo, IconIdCard } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { readString, StorageKey } from '../../../lib/storage';
import type { SystemStatus } from '../../status/types';
import { fetchOAuthState, type UserInfo } from '../api';
import { LinuxDoIcon, WeChatIcon } from './brand-icons';
import { TelegramLoginButton } from './telegram-login-button';
import { WeChatLoginModal } from './wechat-login-modal';

interface OAuthButtonsProps {
  status: SystemStatus;
  /** Whether the password form sits above (then a divider separates them). */
  withDivider: boolean;
  onSignedIn: (user: UserInfo) => void;
}

export type RedirectProvider = 'github' | 'linuxdo' | 'oidc';

/** The provider's authorize address; also used by personal settings to bind an account. */
export function authorizeUrl(provider: RedirectProvider, clientId: string, state: string): string {
  const params = new URLSearchParams({ client_id: clientId, state });
  if (provider === 'github') {
    params.set('scope', 'user:email');
    return `https://github.com/login/oauth/authorize?${params}`;
  }
  params.set('response_type', 'code');
  return `https://connect.linux.do/oauth2/authorize?${params}`;
}

/** Whether the OIDC button can work: switched on, with a client id and an authorization endpoint. */
export function oidcAvailable(status: SystemStatus): boolean {
  return status.oidc_enabled === true && Boolean(status.oidc_client_id) && Boolean(status.oidc_authorization_endpoint);
}

/**
 * The OIDC provider's authorize address. The redirect_uri must be the one the server sends with
 * the code (<ServerAddress>/oauth/oidc, or this origin while no server address is saved).
 */
export function oidcAuthorizeUrl(status: SystemStatus, state: string): string {
  const url = new URL(status.oidc_authorization_endpoint ?? '');
  const origin = (status.server_address || window.location.origin).replace(/\/+$/, '');
  url.searchParams.set('client_id', status.oidc_client_id ?? '');
  url.searchParams.set('redirect_uri', `${origin}/oauth/oidc`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid profile email');
  url.searchParams.set('state', state);
  return url.toString();
}

/** Third-party sign-in; each button exists only while its status flag is on (spec 01 §2). */
export function OAuthButtons({ status, withDivider, onSignedIn }: OAuthButtonsProps) {
  const { t } = useTranslation('auth');
  const [wechatOpen, setWechatOpen] = useState(false);
  const [redirecting, setRedirecting] = useState<RedirectProvider | null>(null);

  const github = status.github_oauth === true && Boolean(status.github_client_id);
  const linuxdo = status.linuxdo_oauth === true && Boolean(status.linuxdo_client_id);
  const wechat = status.wechat_login === true;
  const telegram = status.telegram_oauth === true && Boolean(status.telegram_bot_name);
  const oidc = oidcAvailable(status);
  if (!github && !linuxdo && !wechat && !telegram && !oidc) return null;

  // The state ties the callback to this browser session and carries the inviter code through the round trip.
  const redirect = async (provider: RedirectProvider, clientId: string) => {
    setRedirecting(provider);
    try {
      const state = await fetchOAuthState(readString(StorageKey.inviterCode));
      window.location.assign(provider === 'oidc' ? oidcAuthorizeUrl(status, state) : authorizeUrl(provider, clientId, state));
    } catch {
      setRedirecting(null);
    }
  };

  return (
    <div className="mg-oauth">
      {withDivider && <Divider margin={16}>{t('login.or')}</Divider>}
      <div className="mg-oauth-buttons">
        {github && (
          <Button block icon={<IconGithubLogo />} loading={redirecting === 'github'} onClick={() => void redirect('github', status.github_client_id ?? '')}>
            {t('oauth.github')}
          </Button>
        )}
        {linuxdo && (
          <Button block icon={<LinuxDoIcon />} loading={redirecting === 'linuxdo'} onClick={() => void redirect('linuxdo', status.linuxdo_client_id ?? '')}>
            {t('oauth.linuxdo')}
          </Button>
        )}
        {oidc && (
          <Button block icon={<IconIdCard />} loading={redirecting === 'oidc'} onClick={() => void redirect('oidc', status.oidc_client_id ?? '')}>
            {t('oauth.oidc')}
          </Button>
        )}
        {wechat && (
          <Button block icon={<WeChatIcon />} onClick={() => setWechatOpen(true)}>
            {t('oauth.wechat')}
          </Button>
        )}
        {telegram && <TelegramLoginButton botName={status.telegram_bot_name ?? ''} onSignedIn={onSignedIn} />}
      </div>
      {wechat && (
        <WeChatLoginModal
          visible={wechatOpen}
          qrCodeUrl={status.wechat_qrcode ?? ''}
          onClose={() => setWechatOpen(false)}
          onSignedIn={(user) => {
            setWechatOpen(false);
            onSignedIn(user);
          }}
        />
      )}
    </div>
  );
}

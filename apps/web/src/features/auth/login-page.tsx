import { Banner, Button, Form, Toast, Typography } from '@douyinfe/semi-ui';
import { IconLock, IconUser } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { POST_LOGIN_PATH } from '../../lib/console-paths';
import { useStatus, useSystemName } from '../status/queries';
import { loginWithPassword, needsSecondFactor, type UserInfo } from './api';
import { AuthCard } from './components/auth-card';
import { OAuthButtons } from './components/oauth-buttons';
import { TwoFactorLoginForm } from './components/two-factor-login-form';
import { PasskeyLoginButton } from '../passkeys/components/passkey-login-button';
import { isDefaultRootLogin, startSession, warnAboutDefaultPassword } from './session-actions';
import { useTurnstile } from './use-turnstile';

interface LoginValues {
  username?: string;
  password?: string;
}

export default function LoginPage() {
  const { t } = useTranslation('auth');
  const status = useStatus();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const turnstile = useTurnstile(status);
  const [submitting, setSubmitting] = useState(false);
  /** Set once the password passed on an account with 2FA: the code step shows (and what was typed, for the default-password warning). */
  const [codeStep, setCodeStep] = useState<{ username: string; password: string } | null>(null);

  const expired = searchParams.get('expired') === 'true';
  const passwordLogin = status.password_login_enabled !== false;
  const systemName = useSystemName();

  const onSubmit = async (values: LoginValues) => {
    const username = values.username?.trim() ?? '';
    const password = values.password ?? '';
    if (!username || !password) {
      Toast.warning(t('login.required'));
      return;
    }
    if (!turnstile.ready()) return;
    setSubmitting(true);
    try {
      const answer = await loginWithPassword(username, password, turnstile.token);
      if (needsSecondFactor(answer)) {
        setCodeStep({ username, password });
        setSubmitting(false);
        return;
      }
      onPasswordSignIn(answer, username, password);
    } catch {
      // The API client has shown the server's reason (wrong password, banned, too many attempts).
      setSubmitting(false);
    }
  };

  function onPasswordSignIn(user: UserInfo, username: string, password: string) {
    startSession(user);
    Toast.success(t('login.success'));
    if (isDefaultRootLogin(username, password)) warnAboutDefaultPassword();
    navigate(POST_LOGIN_PATH, { replace: true });
  }

  // Spec 01 §2: every sign-in other than the password form lands on the home page.
  const onThirdPartySignIn = (user: UserInfo) => {
    startSession(user);
    Toast.success(t('login.success'));
    navigate('/', { replace: true });
  };

  return (
    <AuthCard
      title={t('login.title')}
      subtitle={t('login.subtitle', { name: systemName })}
      footer={
        <>
          <Typography.Text type="tertiary">
            {t('login.noAccount')} <Link to="/register">{t('login.register')}</Link>
          </Typography.Text>
          {passwordLogin && (
            <Typography.Text type="tertiary">
              {t('login.forgot')} <Link to="/reset">{t('login.reset')}</Link>
            </Typography.Text>
          )}
        </>
      }
    >
      {expired && <Banner type="warning" closeIcon={null} description={t('login.expired')} className="mg-auth-banner" />}
      {codeStep ? (
        <TwoFactorLoginForm onSignedIn={(user) => onPasswordSignIn(user, codeStep.username, codeStep.password)} onBack={() => setCodeStep(null)} />
      ) : passwordLogin ? (
        <Form<LoginValues> onSubmit={(values) => void onSubmit(values)} labelPosition="top" className="mg-auth-form">
          <Form.Input
            field="username"
            label={t('login.username')}
            placeholder={t('login.usernamePlaceholder')}
            prefix={<IconUser />}
            autoComplete="username"
            size="large"
          />
          <Form.Input
            field="password"
            mode="password"
            label={t('login.password')}
            placeholder={t('login.passwordPlaceholder')}
            prefix={<IconLock />}
            autoComplete="current-password"
            size="large"
          />
          {turnstile.widget}
          <Button htmlType="submit" theme="solid" type="primary" size="large" block loading={submitting}>
            {t('login.submit')}
          </Button>
        </Form>
      ) : (
        <Banner type="info" closeIcon={null} description={t('login.passwordDisabled')} className="mg-auth-banner" />
      )}
      {!codeStep && status.passkey_login === true && <PasskeyLoginButton onSignedIn={onThirdPartySignIn} />}
      {!codeStep && <OAuthButtons status={status} withDivider={passwordLogin} onSignedIn={onThirdPartySignIn} />}
    </AuthCard>
  );
}

import { Banner, Button, Form, Toast, Typography } from '@douyinfe/semi-ui';
import { IconLock, IconMail, IconUser } from '@douyinfe/semi-icons';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH } from '@modelgate/contract';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { readString, StorageKey, writeString } from '../../lib/storage';
import { useStatus, useSystemName } from '../status/queries';
import { register, type UserInfo } from './api';
import { AuthCard } from './components/auth-card';
import { OAuthButtons } from './components/oauth-buttons';
import { VerificationCodeButton } from './components/verification-code-button';
import { startSession } from './session-actions';
import { useTurnstile } from './use-turnstile';

interface RegisterValues {
  username?: string;
  password?: string;
  password2?: string;
  email?: string;
  verification_code?: string;
}

type FormApi = { getValue: (field: keyof RegisterValues) => unknown };

export default function RegisterPage() {
  const { t } = useTranslation('auth');
  const status = useStatus();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const turnstile = useTurnstile(status);
  const formApi = useRef<FormApi | null>(null);
  const [submitting, setSubmitting] = useState(false);

  // The inviter code outlives this page: it may be needed after an OAuth round trip too.
  const affFromLink = searchParams.get('aff');
  useEffect(() => {
    if (affFromLink) writeString(StorageKey.inviterCode, affFromLink);
  }, [affFromLink]);
  const inviterCode = affFromLink || readString(StorageKey.inviterCode) || '';

  const emailVerification = status.email_verification === true;
  const systemName = useSystemName();

  const onSubmit = async (values: RegisterValues) => {
    if (!turnstile.ready()) return;
    setSubmitting(true);
    try {
      const input = {
        username: values.username?.trim() ?? '',
        password: values.password ?? '',
        password2: values.password2 ?? '',
        email: emailVerification ? (values.email?.trim() ?? '') : '',
        verification_code: emailVerification ? (values.verification_code?.trim() ?? '') : '',
        aff_code: inviterCode,
      };
      await register(input, turnstile.token);
      Toast.success(t('register.success'));
      navigate('/login');
    } catch {
      setSubmitting(false);
    }
  };

  const footer = (
    <Typography.Text type="tertiary">
      {t('register.hasAccount')} <Link to="/login">{t('register.login')}</Link>
    </Typography.Text>
  );

  if (status.register_enabled === false) {
    return (
      <AuthCard title={t('register.title')} subtitle={t('register.subtitle', { name: systemName })} footer={footer}>
        <Banner type="info" closeIcon={null} description={t('register.disabled')} className="mg-auth-banner" />
      </AuthCard>
    );
  }

  // Third-party sign-in creates the account on first use, so it stays offered when only passwords are off.
  if (status.password_register_enabled === false) {
    const onThirdPartySignIn = (user: UserInfo) => {
      startSession(user);
      Toast.success(t('login.success'));
      navigate('/', { replace: true });
    };
    return (
      <AuthCard title={t('register.title')} subtitle={t('register.subtitle', { name: systemName })} footer={footer}>
        <Banner type="info" closeIcon={null} description={t('register.passwordDisabled')} className="mg-auth-banner" />
        <OAuthButtons status={status} withDivider={false} onSignedIn={onThirdPartySignIn} />
      </AuthCard>
    );
  }

  return (
    <AuthCard title={t('register.title')} subtitle={t('register.subtitle', { name: systemName })} footer={footer}>
      {inviterCode && <Banner type="success" closeIcon={null} description={t('register.inviter', { code: inviterCode })} className="mg-auth-banner" />}
      <Form<RegisterValues>
        getFormApi={(api) => (formApi.current = api as FormApi)}
        onSubmit={(values) => void onSubmit(values)}
        labelPosition="top"
        className="mg-auth-form"
      >
        <Form.Input
          field="username"
          label={t('register.username')}
          placeholder={t('register.usernamePlaceholder')}
          prefix={<IconUser />}
          autoComplete="username"
          size="large"
          trigger="blur"
          rules={[
            { required: true, whitespace: true, message: t('register.usernameRequired') },
            { max: USERNAME_MAX_LENGTH, message: t('register.usernameTooLong') },
          ]}
        />
        <Form.Input
          field="password"
          mode="password"
          label={t('register.password')}
          placeholder={t('register.passwordPlaceholder')}
          prefix={<IconLock />}
          autoComplete="new-password"
          size="large"
          trigger="blur"
          rules={[
            { required: true, message: t('register.passwordRequired') },
            { min: PASSWORD_MIN_LENGTH, message: t('register.passwordTooShort') },
            { max: PASSWORD_MAX_LENGTH, message: t('register.passwordTooLong') },
          ]}
        />
        <Form.Input
          field="password2"
          mode="password"
          label={t('register.password2')}
          placeholder={t('register.password2Placeholder')}
          prefix={<IconLock />}
          autoComplete="new-password"
          size="large"
          trigger="blur"
          rules={[
            { required: true, message: t('register.password2Required') },
            {
              validator: (_rule: unknown, value: unknown) => (value ?? '') === (formApi.current?.getValue('password') ?? ''),
              message: t('register.passwordMismatch'),
            },
          ]}
        />
        {emailVerification && (
          <>
            <Form.Input
              field="email"
              type="email"
              label={t('register.email')}
              placeholder={t('register.emailPlaceholder')}
              prefix={<IconMail />}
              autoComplete="email"
              size="large"
              trigger="blur"
              rules={[{ required: true, whitespace: true, message: t('register.emailRequired') }]}
              suffix={
                <VerificationCodeButton
                  getEmail={() => String(formApi.current?.getValue('email') ?? '').trim()}
                  beforeSend={turnstile.ready}
                  turnstileToken={turnstile.token}
                />
              }
            />
            <Form.Input
              field="verification_code"
              label={t('register.code')}
              placeholder={t('register.codePlaceholder')}
              autoComplete="one-time-code"
              size="large"
              trigger="blur"
              rules={[{ required: true, whitespace: true, message: t('register.codeRequired') }]}
            />
          </>
        )}
        {turnstile.widget}
        <Button htmlType="submit" theme="solid" type="primary" size="large" block loading={submitting}>
          {t('register.submit')}
        </Button>
      </Form>
    </AuthCard>
  );
}

import { Button, Empty, Spin, Toast } from '@douyinfe/semi-ui';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { POST_LOGIN_PATH, SETTINGS_PATH } from '../../lib/console-paths';
import { completeOAuth, type OAuthProvider } from './api';
import { selfKeys } from './queries';
import { startSession } from './session-actions';

const PROVIDERS: readonly OAuthProvider[] = ['github', 'linuxdo', 'oidc'];

function isProvider(value: string | undefined): value is OAuthProvider {
  return PROVIDERS.includes(value as OAuthProvider);
}

/** /oauth/github, /oauth/linuxdo and /oauth/oidc: exchanges the provider's code, then signs in or finishes a binding (spec 02 §4). */
export default function OAuthCallbackPage() {
  const { t } = useTranslation(['auth', 'not-found']);
  const { provider } = useParams();
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [failed, setFailed] = useState(false);
  // The code is single-use; StrictMode's double effect must not spend it twice.
  const started = useRef(false);

  const code = searchParams.get('code') ?? '';
  const state = searchParams.get('state') ?? '';

  useEffect(() => {
    if (started.current || !isProvider(provider) || !code) return;
    started.current = true;
    completeOAuth(provider, code, state)
      .then(({ bound, user }) => {
        if (bound) {
          // The profile loaded when this page opened predates the binding.
          void queryClient.invalidateQueries({ queryKey: selfKeys.all });
          Toast.success(t('auth:oauth.bound'));
          navigate(SETTINGS_PATH, { replace: true });
          return;
        }
        if (!user) throw new Error('callback answered without a user');
        startSession(user);
        Toast.success(t('auth:login.success'));
        // Spec 02 §4 sends a completed OAuth sign-in to the token list, like the password form.
        navigate(POST_LOGIN_PATH, { replace: true });
      })
      .catch((error: unknown) => {
        Toast.error(error instanceof Error && error.message ? error.message : t('auth:oauth.failed'));
        setFailed(true);
      });
  }, [provider, code, state, navigate, queryClient, t]);

  if (!isProvider(provider)) {
    return (
      <div className="mg-centered-page">
        <Empty title={t('not-found:title')} description={t('not-found:hint')} />
      </div>
    );
  }

  if (failed || !code) {
    return (
      <div className="mg-centered-page">
        <Empty title={t('auth:oauth.failed')}>
          <Link to="/login">
            <Button theme="solid" type="primary">
              {t('auth:oauth.backToLogin')}
            </Button>
          </Link>
        </Empty>
      </div>
    );
  }

  return (
    <div className="mg-centered-page">
      <Spin size="large" tip={t('auth:oauth.processing')} />
    </div>
  );
}

import { Toast } from '@douyinfe/semi-ui';
import { useCallback, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { SystemStatus } from '../status/types';
import { TurnstileWidget } from './components/turnstile-widget';

interface TurnstileState {
  /** The token to send as ?turnstile=; empty when the check is off. */
  token: string;
  /** The widget to place in the form, or null when the check is off. */
  widget: ReactNode;
  /** False (after telling the user) when the check is on and has not produced a token yet. */
  ready: () => boolean;
}

export function useTurnstile(status: SystemStatus): TurnstileState {
  const { t } = useTranslation('auth');
  const [token, setToken] = useState('');
  const enabled = status.turnstile_check === true && Boolean(status.turnstile_site_key);

  const ready = useCallback(() => {
    if (!enabled || token) return true;
    Toast.info(t('turnstile.pending'));
    return false;
  }, [enabled, token, t]);

  return {
    token: enabled ? token : '',
    widget: enabled ? <TurnstileWidget siteKey={status.turnstile_site_key ?? ''} onToken={setToken} /> : null,
    ready,
  };
}

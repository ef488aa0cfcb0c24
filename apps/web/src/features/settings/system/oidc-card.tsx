import { IconIdCard } from '@douyinfe/semi-icons';
import { Button, Input, Toast, Typography } from '@douyinfe/semi-ui';
import type { OidcDiscovery } from '@modelgate/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../lib/api-client';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard, useOptions } from '../options/use-option-card';
import { FieldFrame, SecretField, SwitchField, TextField } from './option-fields';

const OIDC_KEYS = [
  'oidc.enabled',
  'oidc.client_id',
  'oidc.client_secret',
  'oidc.well_known',
  'oidc.authorization_endpoint',
  'oidc.token_endpoint',
  'oidc.user_info_endpoint',
] as const;

const ENDPOINT_KEYS = ['oidc.authorization_endpoint', 'oidc.token_endpoint', 'oidc.user_info_endpoint'] as const;
const ENDPOINT_LABELS = {
  'oidc.authorization_endpoint': 'oidc.authorizationEndpoint',
  'oidc.token_endpoint': 'oidc.tokenEndpoint',
  'oidc.user_info_endpoint': 'oidc.userInfoEndpoint',
} as const;

/** The same id form as the tab's other fields (option-fields.tsx). */
const WELL_KNOWN_ID = 'system-option-oidc.well_known';

const isHttpUrl = (value: string) => /^https?:\/\/[^\s/]+/i.test(value.trim());

/** The server reads the document (a browser would mostly be stopped by the provider's CORS rules). */
async function discoverOidc(wellKnown: string): Promise<OidcDiscovery> {
  const { data } = await api.post<OidcDiscovery>('/api/oauth/oidc/discovery', { well_known: wellKnown }, { silent: true });
  return data;
}

/** OpenID Connect sign-in under new-api's `oidc.*` keys: switch, discovery, client and endpoints, and the callback to register. */
export function OidcCard() {
  const { t } = useTranslation('settings-system');
  const serverAddress = useOptions().data?.ServerAddress?.replace(/\/+$/, '') ?? '';
  const [fetching, setFetching] = useState(false);
  const card = useOptionCard(OIDC_KEYS, {
    validate: (values) => {
      if (values['oidc.well_known'] !== '' && !isHttpUrl(values['oidc.well_known'] ?? '')) return t('oidc.wellKnownScheme');
      for (const key of ENDPOINT_KEYS) {
        if (values[key] !== '' && !isHttpUrl(values[key] ?? '')) return t('oidc.endpointScheme', { name: t(ENDPOINT_LABELS[key]) });
      }
      const complete = values['oidc.client_id'] !== '' && ENDPOINT_KEYS.every((key) => values[key] !== '');
      return values['oidc.enabled'] === 'true' && !complete ? t('oidc.incomplete') : null;
    },
  });

  const fetchEndpoints = async () => {
    const wellKnown = card.value('oidc.well_known').trim();
    if (wellKnown === '') return void Toast.error(t('oidc.wellKnownRequired'));
    if (!isHttpUrl(wellKnown)) return void Toast.error(t('oidc.wellKnownScheme'));
    setFetching(true);
    try {
      const document = await discoverOidc(wellKnown);
      card.set('oidc.authorization_endpoint', document.authorization_endpoint);
      card.set('oidc.token_endpoint', document.token_endpoint);
      card.set('oidc.user_info_endpoint', document.user_info_endpoint);
      Toast.success(t('oidc.fetched'));
    } catch (error) {
      Toast.error(error instanceof Error && error.message ? error.message : t('oidc.wellKnownScheme'));
    } finally {
      setFetching(false);
    }
  };

  return (
    <OptionCardFrame card={card} testId="system-oidc" icon={<IconIdCard />} title={t('oidc.title')} description={t('oidc.description')}>
      <div className="mg-system-info" data-testid="oidc-addresses">
        {serverAddress ? (
          <dl className="mg-system-pairs">
            <dt>{t('oidc.callback')}</dt>
            <dd data-testid="oidc-callback">
              <Typography.Text copyable className="mg-mono">
                {`${serverAddress}/oauth/oidc`}
              </Typography.Text>
            </dd>
          </dl>
        ) : (
          <Typography.Text type="warning" size="small">
            {t('oauth.noServerAddress')}
          </Typography.Text>
        )}
      </div>
      <div style={{ marginBottom: 12 }}>
        <SwitchField card={card} optionKey="oidc.enabled" label={t('oidc.enabled')} hint={t('oidc.enabledHint')} />
      </div>
      <div className="mg-option-grid">
        <FieldFrame id={WELL_KNOWN_ID} label={t('oidc.wellKnown')} hint={t('oidc.wellKnownHint')}>
          <div style={{ display: 'flex', gap: 8 }}>
            <Input
              id={WELL_KNOWN_ID}
              value={card.value('oidc.well_known')}
              onChange={(value) => card.set('oidc.well_known', value)}
              placeholder={t('oidc.wellKnownPlaceholder')}
              inputMode="url"
              autoComplete="off"
            />
            <Button loading={fetching} onClick={() => void fetchEndpoints()} data-testid="oidc-fetch">
              {t('oidc.fetch')}
            </Button>
          </div>
        </FieldFrame>
        <TextField card={card} optionKey="oidc.client_id" label={t('oidc.clientId')} placeholder={t('oidc.clientIdPlaceholder')} />
        <SecretField card={card} optionKey="oidc.client_secret" label={t('oidc.clientSecret')} />
        {ENDPOINT_KEYS.map((key) => (
          <TextField key={key} card={card} optionKey={key} label={t(ENDPOINT_LABELS[key])} placeholder={t('oidc.endpointPlaceholder')} inputMode="url" />
        ))}
      </div>
    </OptionCardFrame>
  );
}

import { Button, Card, Tag, Typography } from '@douyinfe/semi-ui';
import { IconBolt, IconBookStroked, IconCopy, IconGithubLogo, IconKey, IconServer, IconTicketCode } from '@douyinfe/semi-icons';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { copyWithFeedback } from '../../../lib/clipboard';
import { useSessionRoles } from '../../../lib/session';
import { visibleConsoleRoutes } from '../../../route-table';
import { docsAddress } from '../../status/docs-link';
import { useStatus, useSystemName } from '../../status/queries';
import { PROJECT_URL } from '../../../lib/project';

type FeatureKey = 'unified' | 'routing' | 'billing' | 'control';
const FEATURES: Array<{ key: FeatureKey; icon: ReactNode }> = [
  { key: 'unified', icon: <IconBolt size="extra-large" /> },
  { key: 'routing', icon: <IconServer size="extra-large" /> },
  { key: 'billing', icon: <IconTicketCode size="extra-large" /> },
  { key: 'control', icon: <IconKey size="extra-large" /> },
];

const PROTOCOLS = [
  { key: 'openai', color: 'green', path: '/v1/chat/completions' },
  { key: 'anthropic', color: 'orange', path: '/v1/messages' },
  { key: 'gemini', color: 'blue', path: '/v1beta/models/{model}:generateContent' },
] as const;

/** The home page when the admin has not written one: what modelgate is and how to point a client at it. */
export function DefaultHome() {
  const { t } = useTranslation('home');
  const status = useStatus();
  const roles = useSessionRoles();
  const systemName = useSystemName();
  const baseUrl = (status.server_address || window.location.origin).replace(/\/+$/, '');
  const consoleRoute = roles.signedIn ? visibleConsoleRoutes(roles, status)[0] : undefined;
  // As new-api's home: the saved documentation link when there is one, and on a demo site the
  // version, linking to the project.
  const docs = docsAddress(status.docs_link);
  const demoVersion = status.demo_site_enabled ? status.version : undefined;

  const curlExample = [
    `curl ${baseUrl}/v1/chat/completions \\`,
    '  -H "Authorization: Bearer sk-..." \\',
    '  -H "Content-Type: application/json" \\',
    `  -d '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello!"}]}'`,
  ].join('\n');

  return (
    <div className="mg-home">
      <section className="mg-hero">
        <Tag color="light-blue" size="large" shape="circle" className="mg-hero-badge">
          {t('hero.badge')}
        </Tag>
        <Typography.Title heading={1} className="mg-hero-title">
          {systemName}
        </Typography.Title>
        <Typography.Paragraph className="mg-hero-subtitle">{t('hero.subtitle')}</Typography.Paragraph>
        <div className="mg-hero-actions">
          {!roles.signedIn && (
            <>
              <Link to="/login">
                <Button theme="solid" type="primary" size="large">
                  {t('hero.login')}
                </Button>
              </Link>
              {status.register_enabled !== false && (
                <Link to="/register">
                  <Button size="large">{t('hero.register')}</Button>
                </Link>
              )}
            </>
          )}
          {consoleRoute && (
            <Link to={consoleRoute.path}>
              <Button theme="solid" type="primary" size="large">
                {t('hero.console')}
              </Button>
            </Link>
          )}
          <a href={docs ?? PROJECT_URL} target="_blank" rel="noreferrer" data-testid="home-docs">
            <Button size="large" theme="borderless" icon={docs ? <IconBookStroked /> : <IconGithubLogo />}>
              {t('hero.docs')}
            </Button>
          </a>
          {demoVersion && (
            <a href={PROJECT_URL} target="_blank" rel="noreferrer" data-testid="home-version">
              <Button size="large" theme="borderless" icon={<IconGithubLogo />}>
                {demoVersion}
              </Button>
            </a>
          )}
        </div>
      </section>

      <Card className="mg-base-url" bordered>
        <Typography.Text strong>{t('baseUrl.label')}</Typography.Text>
        <div className="mg-base-url-row">
          <code className="mg-base-url-value" data-testid="base-url">
            {baseUrl}
          </code>
          <Button icon={<IconCopy />} onClick={() => void copyWithFeedback(baseUrl)}>
            {t('baseUrl.copy')}
          </Button>
        </div>
        <Typography.Text type="tertiary" size="small">
          {t('baseUrl.hint')}
        </Typography.Text>
        <div className="mg-protocols">
          {PROTOCOLS.map((protocol) => (
            <div key={protocol.key} className="mg-protocol">
              <Tag color={protocol.color} size="large">
                {t(`protocols.${protocol.key}`)}
              </Tag>
              <code>{protocol.path}</code>
            </div>
          ))}
        </div>
      </Card>

      <section>
        <Typography.Title heading={3} className="mg-section-title">
          {t('features.title', { name: systemName })}
        </Typography.Title>
        <div className="mg-feature-grid">
          {FEATURES.map((feature) => (
            <Card key={feature.key} className="mg-feature" bordered>
              <div className="mg-feature-icon">{feature.icon}</div>
              <Typography.Title heading={5}>{t(`features.${feature.key}.title`)}</Typography.Title>
              <Typography.Paragraph type="tertiary">{t(`features.${feature.key}.body`)}</Typography.Paragraph>
            </Card>
          ))}
        </div>
      </section>

      <section>
        <Typography.Title heading={3} className="mg-section-title">
          {t('quickStart.title')}
        </Typography.Title>
        <Typography.Paragraph type="tertiary">{t('quickStart.description')}</Typography.Paragraph>
        <pre className="mg-code-block">
          <code>{curlExample}</code>
        </pre>
      </section>
    </div>
  );
}

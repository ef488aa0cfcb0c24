import { Button, Modal, TabPane, Tabs, Typography } from '@douyinfe/semi-ui';
import { IconCopy } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import { fetchTokenKey, rethrowUnlessApiError, type Token } from '../api';
import { baseUrlsOf, clientEnv, curlExample, firstModelOf, type ClientName } from '../connection-info';
import { useUserModels } from '../queries';
import { fullKey } from '../token-rules';

interface TokenConnectionModalProps {
  token: Token;
  serverAddress: string;
  onClose: () => void;
}

type Snippet = 'curl' | ClientName;
const SNIPPETS: Snippet[] = ['curl', 'codex', 'claudeCode', 'geminiCli'];

/**
 * How to reach the gateway with this token: each SDK's base URL, a cURL call and the variables
 * Codex, Claude Code and the Gemini CLI read. The snippets show the masked key; copying one reads
 * the full key from the server at that moment (as the row's copy does) and puts it in.
 */
export function TokenConnectionModal({ token, serverAddress, onClose }: TokenConnectionModalProps) {
  const { t } = useTranslation('tokens');
  const models = useUserModels();
  const [copying, setCopying] = useState<Snippet | null>(null);
  const urls = baseUrlsOf(serverAddress);
  const model = firstModelOf(token, models.data ?? []) ?? t('connection.anyModel');

  const snippet = (kind: Snippet, key: string) => (kind === 'curl' ? curlExample(serverAddress, key, model) : clientEnv(kind, serverAddress, key));

  const copySnippet = async (kind: Snippet) => {
    setCopying(kind);
    try {
      await copyWithFeedback(snippet(kind, fullKey(await fetchTokenKey(token.id))), t('connection.copied'));
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setCopying(null);
    }
  };

  const baseRows: [string, string, string][] = [
    ['openai', t('connection.openai'), urls.openai],
    ['anthropic', t('connection.anthropic'), urls.anthropic],
    ['gemini', t('connection.gemini'), urls.gemini],
  ];

  return (
    <Modal
      title={t('connection.title', { name: token.name })}
      visible
      onCancel={onClose}
      footer={null}
      width="min(680px, calc(100vw - 24px))"
      className="mg-connection-modal"
      bodyStyle={{ paddingBottom: 24 }}
    >
      <Typography.Title heading={6}>{t('connection.baseUrls')}</Typography.Title>
      <div className="mg-connection-urls">
        {baseRows.map(([id, label, url]) => (
          <div key={id} className="mg-connection-url" data-testid={`connection-url-${id}`}>
            <Typography.Text type="tertiary">{label}</Typography.Text>
            <code>{url}</code>
            <Button
              size="small"
              theme="borderless"
              icon={<IconCopy />}
              aria-label={t('connection.copyUrl', { name: label })}
              onClick={() => void copyWithFeedback(url)}
              data-testid={`connection-copy-url-${id}`}
            />
          </div>
        ))}
      </div>
      <Typography.Title heading={6} className="mg-connection-heading">
        {t('connection.examples')}
      </Typography.Title>
      <Tabs type="button" size="small">
        {SNIPPETS.map((kind) => (
          <TabPane key={kind} itemKey={kind} tab={t(`connection.tabs.${kind}`)}>
            <Typography.Text type="tertiary" size="small" className="mg-connection-hint">
              {t(`connection.hints.${kind}`, { model })}
            </Typography.Text>
            <pre className="mg-connection-code" data-testid={`connection-snippet-${kind}`}>
              {snippet(kind, fullKey(token.key))}
            </pre>
            <Button icon={<IconCopy />} theme="light" loading={copying === kind} onClick={() => void copySnippet(kind)} data-testid={`connection-copy-${kind}`}>
              {t(kind === 'curl' ? 'connection.copyCurl' : 'connection.copyEnv')}
            </Button>
          </TabPane>
        ))}
      </Tabs>
    </Modal>
  );
}

import { Banner, Button, Modal, Typography } from '@douyinfe/semi-ui';
import { IconCopy } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import type { Token } from '../api';
import { fullKey, tokensAsText } from '../token-rules';

export interface CreatedKeys {
  tokens: Token[];
  /** Full keys by token id, read once right after creation (POST /api/token/batch/keys). */
  keys: Record<number, string>;
}

interface CreatedKeysModalProps {
  created: CreatedKeys | null;
  onClose: () => void;
}

/**
 * The new token's key, shown once after it is made (as new-api's console does): with a copy
 * button, so nobody has to find it in the list and reveal it again. A batch lists every key.
 */
export function CreatedKeysModal({ created, onClose }: CreatedKeysModalProps) {
  const { t } = useTranslation(['tokens', 'common']);
  const tokens = created?.tokens.filter((token) => created.keys[token.id] !== undefined) ?? [];
  return (
    <Modal
      title={tokens.length > 1 ? t('created.titleMany', { count: tokens.length }) : t('created.title')}
      visible={created !== null}
      onCancel={onClose}
      centered
      width={640}
      footer={
        <div className="mg-created-keys-footer">
          {tokens.length > 1 && (
            <Button icon={<IconCopy />} onClick={() => void copyWithFeedback(tokensAsText(tokens, created?.keys ?? {}))} data-testid="created-keys-copy-all">
              {t('created.copyAll')}
            </Button>
          )}
          <Button theme="solid" type="primary" onClick={onClose} data-testid="created-keys-close">
            {t('created.done')}
          </Button>
        </div>
      }
    >
      <div data-testid="created-keys">
        <Banner type="warning" closeIcon={null} description={t('created.notice')} />
        <ul className="mg-created-keys">
          {tokens.map((token) => {
            const key = fullKey(created?.keys[token.id] ?? '');
            return (
              <li key={token.id} className="mg-created-key" data-testid={`created-key-${token.id}`}>
                <Typography.Text strong ellipsis={{ showTooltip: true }}>
                  {token.name}
                </Typography.Text>
                <div className="mg-created-key-value">
                  <Typography.Text className="mg-mono" data-testid="created-key-value">
                    {key}
                  </Typography.Text>
                  <Button size="small" theme="light" icon={<IconCopy />} onClick={() => void copyWithFeedback(key)} aria-label={t('actions.copy')}>
                    {t('actions.copy')}
                  </Button>
                </div>
              </li>
            );
          })}
        </ul>
      </div>
    </Modal>
  );
}

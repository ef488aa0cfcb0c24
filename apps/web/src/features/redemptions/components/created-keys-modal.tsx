import { Button, Modal, Typography } from '@douyinfe/semi-ui';
import { IconCopy, IconDownload } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';

interface CreatedKeysModalProps {
  keys: string[];
  onClose: () => void;
}

function downloadKeys(keys: string[]): void {
  const blob = new Blob([`${keys.join('\n')}\n`], { type: 'text/plain;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `redemption-codes-${new Date().toISOString().slice(0, 19).replaceAll(':', '-')}.txt`;
  link.click();
  // The click has started the download synchronously; the object URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** After a batch create: every new key at once, with copy-all and download (the list shows them later too). */
export function CreatedKeysModal({ keys, onClose }: CreatedKeysModalProps) {
  const { t } = useTranslation('redemptions');
  return (
    <Modal
      title={t('keys.title')}
      visible={keys.length > 0}
      onCancel={onClose}
      maskClosable={false}
      centered
      width={560}
      footer={
        <div className="mg-keys-footer">
          <Button icon={<IconDownload />} onClick={() => downloadKeys(keys)}>
            {t('keys.download')}
          </Button>
          <Button icon={<IconCopy />} onClick={() => void copyWithFeedback(keys.join('\n'))} data-testid="copy-all-keys">
            {t('keys.copyAll')}
          </Button>
          <Button theme="solid" type="primary" onClick={onClose}>
            {t('keys.close')}
          </Button>
        </div>
      }
    >
      <Typography.Paragraph type="tertiary">{t('keys.description', { count: keys.length })}</Typography.Paragraph>
      <ol className="mg-created-keys mg-mono" data-testid="created-keys">
        {keys.map((key) => (
          <li key={key}>{key}</li>
        ))}
      </ol>
    </Modal>
  );
}

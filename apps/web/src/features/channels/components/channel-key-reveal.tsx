import { Button, Input, Typography } from '@douyinfe/semi-ui';
import { IconCopy, IconEyeOpened } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import { revealChannelKey, rethrowUnlessApiError } from '../api';

/** 查看密钥 for the super administrator: the stored key after a security verification, with copy. */
export function ChannelKeyReveal({ channelId }: { channelId: number }) {
  const { t } = useTranslation(['security', 'common']);
  const [key, setKey] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const reveal = async () => {
    setLoading(true);
    try {
      setKey(await revealChannelKey(channelId));
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setLoading(false);
    }
  };

  if (key === null) {
    return (
      <div className="mg-channel-key-reveal">
        <Button icon={<IconEyeOpened />} theme="light" size="small" loading={loading} onClick={() => void reveal()} data-testid="channel-show-key">
          {t('channelKey.show')}
        </Button>
        <Typography.Text type="tertiary" size="small">
          {t('channelKey.hint')}
        </Typography.Text>
      </div>
    );
  }
  return (
    <div className="mg-channel-key-reveal">
      <Typography.Text strong>{t('channelKey.label')}</Typography.Text>
      <div className="mg-channel-key-row">
        <Input readonly value={key} className="mg-mono" aria-label={t('channelKey.label')} data-testid="channel-revealed-key" />
        <Button icon={<IconCopy />} onClick={() => void copyWithFeedback(key)}>
          {t('common:actions.copy')}
        </Button>
      </div>
    </div>
  );
}

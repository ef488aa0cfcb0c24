import { Checkbox, Form, Input, Modal, Typography } from '@douyinfe/semi-ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Channel } from '../api';
import type { ChannelActions } from '../use-channel-actions';

interface ChannelCopyModalProps {
  channel: Channel;
  visible: boolean;
  actions: ChannelActions;
  onClose: () => void;
}

/**
 * Asks before copying a channel (new-api's POST /api/channel/copy/:id): the name suffix and
 * whether the copy starts with no used quota and balance. The key is copied on the server.
 */
export function ChannelCopyModal({ channel, visible, actions, onClose }: ChannelCopyModalProps) {
  const { t } = useTranslation('channels');
  const [suffix, setSuffix] = useState(() => t('copySuffix'));
  const [resetBalance, setResetBalance] = useState(true);
  const [busy, setBusy] = useState(false);

  const copy = async () => {
    setBusy(true);
    try {
      await actions.copy(channel, suffix, resetBalance);
      onClose();
    } catch {
      // The action has told the user; the dialog stays for another try.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      title={t('copyDialog.title')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void copy()}
      okText={t('actions.copy')}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'channel-copy-confirm' } as object}
      width={440}
      centered
    >
      <Typography.Paragraph type="tertiary" className="mg-copy-dialog-note">
        {t('copyDialog.note', { name: channel.name })}
      </Typography.Paragraph>
      <Form.Label text={t('copyDialog.suffix')} />
      <Input value={suffix} onChange={setSuffix} maxLength={64} data-testid="channel-copy-suffix" />
      <Typography.Text type="tertiary" size="small">
        {t('copyDialog.preview', { name: `${channel.name}${suffix}` })}
      </Typography.Text>
      <div className="mg-copy-dialog-reset">
        <Checkbox checked={resetBalance} onChange={(event) => setResetBalance(Boolean(event.target.checked))} data-testid="channel-copy-reset">
          {t('copyDialog.resetBalance')}
        </Checkbox>
      </div>
    </Modal>
  );
}

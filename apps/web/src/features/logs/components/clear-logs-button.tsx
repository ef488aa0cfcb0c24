import { Button, DatePicker, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { IconDelete } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api-client';
import { clearLogsBefore } from '../api';

/** An admin removes every log older than a chosen time (new-api's DELETE /api/log/?target_timestamp=). */
export function ClearLogsButton({ onCleared }: { onCleared: () => Promise<void> }) {
  const { t } = useTranslation('logs');
  const [open, setOpen] = useState(false);
  const [before, setBefore] = useState<Date | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    if (!before) return void Toast.error(t('clear.needTime'));
    setBusy(true);
    try {
      const count = await clearLogsBefore(Math.floor(before.getTime() / 1000));
      Toast.success(t('clear.done', { n: count }));
      setOpen(false);
      await onCleared();
    } catch (error) {
      // The API client has already shown the server's message.
      if (!(error instanceof ApiError)) throw error;
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button type="danger" icon={<IconDelete />} onClick={() => setOpen(true)} data-testid="log-clear">
        {t('clear.button')}
      </Button>
      <Modal
        title={t('clear.title')}
        visible={open}
        onCancel={() => setOpen(false)}
        onOk={() => void submit()}
        okText={t('clear.ok')}
        cancelText={t('clear.cancel')}
        okButtonProps={{ type: 'danger', loading: busy, 'data-testid': 'log-clear-ok' } as object}
      >
        <Typography.Paragraph>{t('clear.confirm')}</Typography.Paragraph>
        <Typography.Text strong>{t('clear.label')}</Typography.Text>
        <div data-testid="log-clear-time" className="mg-log-clear-time">
          <DatePicker
            type="dateTime"
            value={before ?? undefined}
            onChange={(value) => setBefore(value instanceof Date ? value : null)}
            style={{ width: '100%' }}
          />
        </div>
      </Modal>
    </>
  );
}

import { Button, Modal, Progress, Toast, Typography } from '@douyinfe/semi-ui';
import { IconDownload } from '@douyinfe/semi-icons';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError } from '../../../lib/api-client';
import type { LogFilters } from '../api';
import { downloadLogsCsv, type ExportProgress, saveFile } from '../log-export';

const formatBytes = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`);

/** Exports the rows the applied filters select as CSV, with the rows read of the total and a cancel. */
export function ExportLogsButton({ filters, admin }: { filters: LogFilters; admin: boolean }) {
  const { t, i18n } = useTranslation('logs');
  const [progress, setProgress] = useState<ExportProgress | null>(null);
  const abort = useRef<AbortController | null>(null);
  // Leaving the page cancels a running export.
  useEffect(() => () => abort.current?.abort(), []);

  const start = async () => {
    const controller = new AbortController();
    abort.current = controller;
    setProgress({ rows: 0, total: 0, bytes: 0 });
    try {
      const { file, name, rows } = await downloadLogsCsv(filters, admin, i18n.language, setProgress, controller.signal);
      saveFile(file, name);
      Toast.success(t('export.done', { n: rows }));
    } catch (error) {
      if (controller.signal.aborted) Toast.info(t('export.cancelled'));
      else if (error instanceof TypeError) Toast.error(t('export.failed'));
      else rethrowUnlessApiError(error);
    } finally {
      abort.current = null;
      setProgress(null);
    }
  };

  const percent = progress && progress.total > 0 ? Math.min(100, Math.floor((progress.rows / progress.total) * 100)) : 0;
  return (
    <>
      <Button icon={<IconDownload />} onClick={() => void start()} loading={progress !== null} data-testid="log-export">
        {t('export.button')}
      </Button>
      <Modal
        title={t('export.title')}
        visible={progress !== null}
        closable={false}
        maskClosable={false}
        width="min(448px, calc(100vw - 24px))"
        footer={
          <Button onClick={() => abort.current?.abort()} data-testid="log-export-cancel">
            {t('export.cancel')}
          </Button>
        }
      >
        <div data-testid="log-export-progress">
          <Progress percent={percent} showInfo size="large" aria-label={t('export.title')} />
          <Typography.Text type="secondary" data-testid="log-export-count">
            {t('export.progress', { rows: progress?.rows ?? 0, total: progress?.total ?? 0, size: formatBytes(progress?.bytes ?? 0) })}
          </Typography.Text>
        </div>
      </Modal>
    </>
  );
}

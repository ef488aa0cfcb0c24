import { Banner, Button, Space } from '@douyinfe/semi-ui';
import { IconCopy, IconDownload } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';

/** Saves the codes as a text file, one a line. */
function downloadCodes(codes: string[]): void {
  const url = URL.createObjectURL(new Blob([`${codes.join('\n')}\n`], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'backup-codes.txt';
  link.click();
  URL.revokeObjectURL(url);
}

/** One-time backup codes, shown once: a grid the user can copy or download. */
export function BackupCodesView({ codes }: { codes: string[] }) {
  const { t } = useTranslation('security');
  return (
    <div className="mg-backup-codes">
      <Banner type="warning" closeIcon={null} description={t('twoFactor.backupHint')} />
      <ol className="mg-backup-code-list mg-mono" data-testid="backup-codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <Space wrap>
        <Button icon={<IconCopy />} onClick={() => void copyWithFeedback(codes.join('\n'))}>
          {t('twoFactor.copyCodes')}
        </Button>
        <Button icon={<IconDownload />} onClick={() => downloadCodes(codes)}>
          {t('twoFactor.downloadCodes')}
        </Button>
      </Space>
    </div>
  );
}

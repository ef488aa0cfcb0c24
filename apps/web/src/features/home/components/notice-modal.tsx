import { Button, Modal } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../../components/shared/rich-content';
import { readClosedNotice, rememberClosedNotice, shouldShowNotice } from '../notice-rules';
import { useNotice } from '../queries';

interface NoticeDialogProps {
  notice: string;
  visible: boolean;
  onClose: () => void;
}

/** The notice as visitors see it; the Other settings tab previews a draft with the same dialog. */
export function NoticeDialog({ notice, visible, onClose }: NoticeDialogProps) {
  const { t } = useTranslation('home');
  return (
    <Modal
      title={t('notice.title')}
      visible={visible}
      onCancel={onClose}
      centered
      width={560}
      footer={
        <Button theme="solid" type="primary" onClick={onClose} data-testid="notice-close">
          {t('notice.close')}
        </Button>
      }
    >
      <div className="mg-notice-body" data-testid="notice-body">
        <RichContent source={notice} title={t('notice.title')} embed={false} />
      </div>
    </Modal>
  );
}

/** The admin's notice on the home page: once per change of its text (notice-rules.ts says why). */
export function NoticeModal() {
  const { data: notice } = useNotice();
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    setVisible(shouldShowNotice(notice, readClosedNotice()));
  }, [notice]);

  if (!notice) return null;
  const close = () => {
    rememberClosedNotice(notice);
    setVisible(false);
  };
  return <NoticeDialog notice={notice} visible={visible} onClose={close} />;
}

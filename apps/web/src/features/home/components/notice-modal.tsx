import { Button, Modal } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../../components/shared/rich-content';
import { useNotice } from '../queries';

// Per browser session, not localStorage: a notice should reappear on the next visit, not on every home click.
const SEEN_KEY = 'modelgate-notice-seen';

function alreadySeen(notice: string): boolean {
  try {
    return window.sessionStorage.getItem(SEEN_KEY) === notice;
  } catch {
    return false;
  }
}

function markSeen(notice: string): void {
  try {
    window.sessionStorage.setItem(SEEN_KEY, notice);
  } catch {
    /* without storage the notice simply shows again */
  }
}

/** Shows the admin's notice once when it is set. */
export function NoticeModal() {
  const { t } = useTranslation('home');
  const { data: notice } = useNotice();
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    if (notice && notice.trim() && !alreadySeen(notice)) setVisible(true);
  }, [notice]);

  if (!notice) return null;
  const close = () => {
    markSeen(notice);
    setVisible(false);
  };
  return (
    <Modal
      title={t('notice.title')}
      visible={visible}
      onCancel={close}
      centered
      width={560}
      footer={
        <Button theme="solid" type="primary" onClick={close}>
          {t('notice.close')}
        </Button>
      }
    >
      <div className="mg-notice-body">
        <RichContent source={notice} title={t('notice.title')} />
      </div>
    </Modal>
  );
}

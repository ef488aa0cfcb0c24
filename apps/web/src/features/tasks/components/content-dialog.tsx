import { Button, Modal } from '@douyinfe/semi-ui';
import { IconCopy } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';

export interface DialogContent {
  title: string;
  text: string;
}

interface ContentDialogProps {
  content: DialogContent | null;
  onClose: () => void;
}

/** A prompt, fail reason or task record in full, with a copy button (new-api's ContentModal). */
export function ContentDialog({ content, onClose }: ContentDialogProps) {
  const { t } = useTranslation('tasks');
  return (
    <Modal
      visible={content !== null}
      title={content?.title}
      onCancel={onClose}
      centered
      width={640}
      footer={
        <Button icon={<IconCopy />} onClick={() => content && void copyWithFeedback(content.text)} data-testid="task-content-copy">
          {t('dialog.copy')}
        </Button>
      }
    >
      <pre className="mg-task-content" data-testid="task-content">
        {content?.text}
      </pre>
    </Modal>
  );
}

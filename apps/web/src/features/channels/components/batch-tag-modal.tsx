import { Input, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError, setChannelsTag } from '../api';

interface BatchTagModalProps {
  visible: boolean;
  selectedIds: number[];
  onClose: () => void;
  onSaved: () => Promise<void>;
}

/** Sets one tag on the selected channels (spec 02 §5: needs a selection and a non-empty tag). */
export function BatchTagModal({ visible, selectedIds, onClose, onSaved }: BatchTagModalProps) {
  const { t } = useTranslation('channels');
  const [tag, setTag] = useState('');
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (visible) setTag('');
  }, [visible]);

  const submit = async () => {
    if (selectedIds.length === 0) return void Toast.error(t('messages.selectToTag'));
    if (tag.trim() === '') return void Toast.error(t('messages.tagRequired'));
    setSaving(true);
    try {
      const count = await setChannelsTag(selectedIds, tag.trim());
      Toast.success(t('messages.tagSet', { count }));
      await onSaved();
      onClose();
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal title={t('batchTag.title')} visible={visible} onCancel={onClose} onOk={() => void submit()} okButtonProps={{ loading: saving }} centered>
      <Typography.Paragraph type="tertiary" className="mg-channel-modal-hint">
        {t('batchTag.hint', { count: selectedIds.length })}
      </Typography.Paragraph>
      <Input value={tag} onChange={setTag} placeholder={t('batchTag.placeholder')} onEnterPress={() => void submit()} autoFocus data-testid="batch-tag-input" />
    </Modal>
  );
}

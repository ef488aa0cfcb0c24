import { Banner, Form, Modal, Toast } from '@douyinfe/semi-ui';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { editTag, rethrowUnlessApiError, type TagEditPayload } from '../api';
import { DEFAULT_MODEL_MAPPING, isJsonObjectOrEmpty, parseOptionalInteger } from '../channel-rules';
import { useGroups, useModelCatalogue } from '../queries';

interface TagValues {
  new_tag?: string;
  model_mapping?: string;
  models?: string[];
  groups?: string[];
  priority?: string;
  weight?: string;
}

interface TagEditModalProps {
  tag: string | null;
  onClose: () => void;
  onSaved: () => Promise<void>;
}

/** Edits every channel with a tag at once (PUT /api/channel/tag); empty fields stay as they are. */
export function TagEditModal({ tag, onClose, onSaved }: TagEditModalProps) {
  const { t } = useTranslation('channels');
  const visible = tag !== null;
  const groups = useGroups(visible);
  const catalogue = useModelCatalogue(visible);
  const formApi = useRef<{ submitForm: () => void } | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = async (values: TagValues) => {
    if (tag === null) return;
    const priority = parseOptionalInteger(values.priority, false);
    const weight = parseOptionalInteger(values.weight, true);
    if (priority === 'invalid') return void Toast.error(t('tagEdit.errors.priority'));
    if (weight === 'invalid') return void Toast.error(t('tagEdit.errors.weight'));
    if (!isJsonObjectOrEmpty(values.model_mapping)) return void Toast.error(t('tagEdit.errors.modelMapping'));

    const payload: TagEditPayload = { tag };
    const newTag = values.new_tag?.trim() ?? '';
    if (newTag !== '' && newTag !== tag) payload.new_tag = newTag;
    if (values.model_mapping?.trim()) payload.model_mapping = values.model_mapping.trim();
    if (values.models?.length) payload.models = values.models.join(',');
    if (values.groups?.length) payload.groups = values.groups.join(',');
    if (priority !== undefined) payload.priority = priority;
    if (weight !== undefined) payload.weight = weight;
    if (Object.keys(payload).length === 1) return void Toast.info(t('tagEdit.errors.noChanges'));

    setSaving(true);
    try {
      await editTag(payload);
      Toast.success(t('tagEdit.success'));
      await onSaved();
      onClose();
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      title={`${t('tagEdit.title')}${tag ? `：${tag}` : ''}`}
      visible={visible}
      onCancel={onClose}
      onOk={() => formApi.current?.submitForm()}
      okButtonProps={{ loading: saving }}
      width={600}
      centered
    >
      {visible && (
        <Form<TagValues>
          key={tag}
          initValues={{ new_tag: tag }}
          labelPosition="top"
          getFormApi={(api) => (formApi.current = api)}
          onSubmit={(values) => void submit(values)}
        >
          <Banner type="info" closeIcon={null} description={t('tagEdit.hint')} className="mg-channel-banner" />
          <Form.Input field="new_tag" label={t('tagEdit.newTag')} placeholder={t('tagEdit.newTagPlaceholder')} data-testid="tag-edit-new-tag" />
          <Form.Select
            field="models"
            label={t('tagEdit.models')}
            placeholder={t('tagEdit.modelsPlaceholder')}
            multiple
            filter
            allowCreate
            maxTagCount={16}
            optionList={(catalogue.data ?? []).map((model) => ({ value: model.id, label: model.id }))}
            style={{ width: '100%' }}
          />
          <Form.Select
            field="groups"
            label={t('tagEdit.groups')}
            placeholder={t('tagEdit.groupsPlaceholder')}
            multiple
            filter
            allowCreate
            optionList={(groups.data ?? []).map((group) => ({ value: group, label: group }))}
            style={{ width: '100%' }}
          />
          <Form.TextArea
            field="model_mapping"
            label={t('tagEdit.modelMapping')}
            placeholder={t('form.modelMappingPlaceholder', { template: DEFAULT_MODEL_MAPPING })}
            autosize={{ minRows: 3, maxRows: 8 }}
            className="mg-mono"
          />
          <div className="mg-channel-form-row">
            <Form.Input field="priority" label={t('tagEdit.priority')} placeholder={t('tagEdit.keep')} data-testid="tag-edit-priority" />
            <Form.Input field="weight" label={t('tagEdit.weight')} placeholder={t('tagEdit.keep')} data-testid="tag-edit-weight" />
          </div>
        </Form>
      )}
    </Modal>
  );
}

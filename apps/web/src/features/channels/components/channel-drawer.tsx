import { Form, Toast, Typography } from '@douyinfe/semi-ui';
import { canRelayChannelType, CHANNEL_TYPES, channelTypeInfo } from '@modelgate/contract';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DrawerLoading, type DrawerFormApi, FormDrawer } from '../../../components/shared/form-drawer';
import { createChannels, rethrowUnlessApiError, updateChannel, type Channel, type ChannelPayload } from '../api';
import { splitList } from '../channel-display';
import { DEFAULT_MODEL_MAPPING, isJsonObjectOrEmpty, keyLines } from '../channel-rules';
import { useChannel, useGroups, useModelCatalogue } from '../queries';
import { useSessionRoles } from '../../../lib/session';
import { ChannelKeyReveal } from './channel-key-reveal';
import { ChannelModelsField } from './channel-models-field';
import { ChannelTypeFields, keyHintFor } from './channel-type-fields';

interface FormValues {
  type: number;
  name: string;
  batch: boolean;
  key: string;
  base_url: string;
  other: string;
  openai_organization: string;
  groups: string[];
  models: string[];
  model_mapping: string;
  status_code_mapping: string;
  test_model: string;
  auto_ban: boolean;
  tag: string;
  priority: number;
  weight: number;
  setting: string;
  header_override: string;
  /** The setting's responses_api: '' (the type decides), 'native' or 'chat'. */
  responses_api: '' | 'native' | 'chat';
  /** Several keys in one channel: how a request picks its key. */
  multi_key_mode: 'random' | 'polling';
  /** Editing a multi-key channel: the keys typed join the stored ones or replace them. */
  key_mode: 'append' | 'replace';
}

type FormApi = DrawerFormApi<FormValues>;

const NEW_CHANNEL: FormValues = {
  type: 1,
  name: '',
  batch: false,
  key: '',
  base_url: '',
  other: '',
  openai_organization: '',
  groups: ['default'],
  models: [],
  model_mapping: '',
  status_code_mapping: '',
  test_model: '',
  auto_ban: true,
  tag: '',
  priority: 0,
  weight: 0,
  setting: '',
  header_override: '',
  responses_api: '',
  multi_key_mode: 'random',
  key_mode: 'append',
};

/** The setting's responses_api, when the setting is a JSON object that names one. */
function responsesApiOf(setting: string): FormValues['responses_api'] {
  try {
    const value = (JSON.parse(setting) as { responses_api?: unknown }).responses_api;
    return value === 'native' || value === 'chat' ? value : '';
  } catch {
    return '';
  }
}

/** The setting with responses_api set (or removed for ''); a setting that is not a JSON object is left for the server to refuse. */
function withResponsesApi(setting: string, mode: FormValues['responses_api']): string {
  let object: Record<string, unknown> = {};
  if (setting !== '') {
    try {
      const parsed: unknown = JSON.parse(setting);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return setting;
      object = parsed as Record<string, unknown>;
    } catch {
      return setting;
    }
  }
  if (mode === '' && object.responses_api === undefined) return setting;
  const next = { ...object };
  if (mode === '') delete next.responses_api;
  else next.responses_api = mode;
  return Object.keys(next).length === 0 ? '' : JSON.stringify(next);
}

function fromChannel(channel: Channel): FormValues {
  return {
    type: channel.type,
    name: channel.name,
    batch: false,
    key: '',
    base_url: channel.base_url ?? '',
    other: channel.other ?? '',
    openai_organization: channel.openai_organization ?? '',
    groups: splitList(channel.group),
    models: splitList(channel.models),
    model_mapping: channel.model_mapping ?? '',
    status_code_mapping: channel.status_code_mapping ?? '',
    test_model: channel.test_model ?? '',
    auto_ban: channel.auto_ban !== 0,
    tag: channel.tag ?? '',
    priority: channel.priority,
    weight: channel.weight,
    setting: channel.setting ?? '',
    header_override: channel.header_override ?? '',
    responses_api: responsesApiOf(channel.setting ?? ''),
    multi_key_mode: channel.channel_info.multi_key_mode,
    key_mode: 'append',
  };
}

function toPayload(values: FormValues, multiKey: boolean, editing: boolean): ChannelPayload {
  const key = values.batch ? keyLines(values.key ?? '').join('\n') : (values.key ?? '').trim();
  return {
    ...(multiKey ? { multi_key_mode: values.multi_key_mode ?? 'random' } : {}),
    ...(editing && multiKey && key !== '' ? { key_mode: values.key_mode ?? 'append' } : {}),
    type: values.type,
    name: (values.name ?? '').trim(),
    key,
    base_url: (values.base_url ?? '').trim(),
    other: (values.other ?? '').trim(),
    openai_organization: (values.openai_organization ?? '').trim(),
    groups: values.groups ?? [],
    models: (values.models ?? []).join(','),
    model_mapping: (values.model_mapping ?? '').trim(),
    status_code_mapping: (values.status_code_mapping ?? '').trim(),
    test_model: (values.test_model ?? '').trim(),
    auto_ban: values.auto_ban ? 1 : 0,
    tag: (values.tag ?? '').trim(),
    priority: Number(values.priority ?? 0),
    weight: Math.max(0, Number(values.weight ?? 0)),
    setting: withResponsesApi((values.setting ?? '').trim(), values.responses_api ?? ''),
    header_override: (values.header_override ?? '').trim(),
  };
}

interface ChannelDrawerProps {
  /** null: closed; 'add': a new channel; a number: edit that channel. */
  target: 'add' | number | null;
  onClose: () => void;
  onSaved: () => Promise<void>;
}

/** The channel form as a side drawer (spec 02 §2), with the checks of §5 before anything is sent. */
export function ChannelDrawer({ target, onClose, onSaved }: ChannelDrawerProps) {
  const { t } = useTranslation('channels');
  const editingId = typeof target === 'number' ? target : null;
  const roles = useSessionRoles();
  const visible = target !== null;
  const channel = useChannel(editingId);
  const groups = useGroups(visible);
  const catalogue = useModelCatalogue(visible);
  const formApi = useRef<FormApi | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const initValues = useMemo(() => (editingId === null ? NEW_CHANNEL : channel.data ? fromChannel(channel.data) : null), [editingId, channel.data]);
  // A fresh form per opened channel: Semi's Form reads initValues only when it mounts.
  const [formKey, setFormKey] = useState(0);
  useEffect(() => setFormKey((key) => key + 1), [target, initValues]);
  // A channel that no longer exists: the API client has said so, the drawer has nothing to show.
  useEffect(() => {
    if (channel.isError) onClose();
  }, [channel.isError, onClose]);

  const submit = async (values: FormValues) => {
    setSubmitting(true);
    try {
      const payload = toPayload(values, isMultiKey(values), editingId !== null);
      if (editingId === null) {
        const message = await createChannels(payload, values.batch);
        Toast.success(message || t('form.createSuccess'));
      } else {
        await updateChannel({ ...payload, id: editingId });
        Toast.success(t('form.updateSuccess'));
      }
      await onSaved();
      onClose();
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setSubmitting(false);
    }
  };

  /** A channel of several keys: one being created from several key lines, or a stored multi-key channel. */
  const isMultiKey = (values: FormValues) =>
    !values.batch && (keyLines(values.key ?? '').length > 1 || (editingId !== null && channel.data?.channel_info.is_multi_key === true));

  const groupOptions = [...new Set([...(groups.data ?? []), ...(initValues?.groups ?? [])])].map((group) => ({ value: group, label: group }));
  // Types this version cannot relay are shown but not chosen (the server refuses them on save too).
  const typeOptions = CHANNEL_TYPES.map((info) =>
    canRelayChannelType(info.value)
      ? { value: info.value, label: info.name }
      : { value: info.value, label: `${info.name}（${t('form.typeUnsupported')}）`, disabled: true },
  );

  return (
    <FormDrawer
      visible={visible}
      title={editingId === null ? t('form.addTitle') : t('form.editTitle')}
      width={640}
      className="mg-channel-drawer"
      bodyStyle={{ paddingBottom: 24 }}
      texts={{ cancel: t('form.cancel'), submit: t('form.submit') }}
      submitting={submitting}
      submitDisabled={!initValues}
      submitTestId="channel-form-submit"
      onSubmit={() => formApi.current?.submitForm()}
      onClose={onClose}
    >
      {!initValues ? (
        <DrawerLoading tip={t('form.loading')} />
      ) : (
        <Form<FormValues>
          key={formKey}
          initValues={initValues}
          labelPosition="top"
          getFormApi={(api) => (formApi.current = api as unknown as FormApi)}
          onSubmit={(values) => void submit(values)}
          data-testid="channel-form"
        >
          {({ values }) => {
            const setModels = (models: string[]) => formApi.current?.setValue('models', models);
            const keyCount = values.batch ? keyLines(values.key ?? '').length : 0;
            const keyHint = keyHintFor(values.type, t);
            return (
              <>
                <Form.Select
                  field="type"
                  label={t('form.type')}
                  placeholder={t('form.typePlaceholder')}
                  optionList={typeOptions}
                  filter
                  style={{ width: '100%' }}
                  rules={[{ required: true, message: t('form.errors.type') }]}
                  data-testid="channel-form-type"
                />
                <Form.Input
                  field="name"
                  label={t('form.name')}
                  placeholder={t('form.namePlaceholder')}
                  rules={[{ required: true, whitespace: true, message: t('form.errors.name') }]}
                  data-testid="channel-form-name"
                />
                <ChannelTypeFields type={values.type} />
                {editingId === null && (
                  <Form.Checkbox field="batch" noLabel extraText={t('form.batchHint')} data-testid="channel-form-batch">
                    {t('form.batch')}
                  </Form.Checkbox>
                )}
                {values.batch || keyHint?.multiline ? (
                  <Form.TextArea
                    field="key"
                    label={t('form.key')}
                    placeholder={keyHint?.multiline ? keyHint.placeholder : t('form.keyBatchPlaceholder')}
                    autosize={{ minRows: 4, maxRows: 12 }}
                    extraText={values.batch && keyCount > 0 ? t('form.keyCount', { count: keyCount }) : keyHint?.extra}
                    rules={editingId === null ? [{ required: true, whitespace: true, message: t('form.errors.key') }] : []}
                    className="mg-mono"
                    data-testid="channel-form-key"
                  />
                ) : (
                  <Form.Input
                    field="key"
                    label={t('form.key')}
                    mode="password"
                    autoComplete="new-password"
                    placeholder={editingId === null ? (keyHint?.placeholder ?? t('form.keyPlaceholder')) : t('form.keyEditPlaceholder')}
                    extraText={keyHint?.extra}
                    rules={editingId === null ? [{ required: true, whitespace: true, message: t('form.errors.key') }] : []}
                    data-testid="channel-form-key"
                  />
                )}
                {editingId !== null && roles.root && <ChannelKeyReveal key={editingId} channelId={editingId} />}
                {isMultiKey(values) && (
                  <div className="mg-channel-form-row">
                    <Form.Select
                      field="multi_key_mode"
                      label={t('form.multiKeyMode')}
                      optionList={[
                        { value: 'random', label: t('keys.modeRandom') },
                        { value: 'polling', label: t('keys.modePolling') },
                      ]}
                      extraText={t('form.multiKeyModeHint')}
                      style={{ width: '100%' }}
                      data-testid="channel-form-multi-key-mode"
                    />
                    {editingId !== null && channel.data?.channel_info.is_multi_key && (values.key ?? '').trim() !== '' && (
                      <Form.RadioGroup field="key_mode" label={t('form.keyMode')} data-testid="channel-form-key-mode">
                        <Form.Radio value="append">{t('form.keyModeAppend')}</Form.Radio>
                        <Form.Radio value="replace">{t('form.keyModeReplace')}</Form.Radio>
                      </Form.RadioGroup>
                    )}
                  </div>
                )}
                <Form.Select
                  field="groups"
                  label={t('form.groups')}
                  placeholder={t('form.groupsPlaceholder')}
                  multiple
                  filter
                  allowCreate
                  optionList={groupOptions}
                  style={{ width: '100%' }}
                  rules={[{ required: true, type: 'array', min: 1, message: t('form.errors.groups') }]}
                  data-testid="channel-form-groups"
                />
                <ChannelModelsField
                  values={{ type: values.type, models: values.models ?? [], base_url: values.base_url ?? '', key: values.key ?? '' }}
                  setModels={setModels}
                  catalogue={catalogue.data ?? []}
                  channelId={editingId ?? undefined}
                />
                <Form.TextArea
                  field="model_mapping"
                  label={t('form.modelMapping')}
                  placeholder={t('form.modelMappingPlaceholder', { template: DEFAULT_MODEL_MAPPING })}
                  autosize={{ minRows: 3, maxRows: 10 }}
                  className="mg-mono"
                  rules={[{ validator: (_rule, value: string) => isJsonObjectOrEmpty(value), message: t('form.errors.modelMapping') }]}
                  extraText={
                    <Typography.Text link onClick={() => formApi.current?.setValue('model_mapping', DEFAULT_MODEL_MAPPING)}>
                      {t('form.fillTemplate')}
                    </Typography.Text>
                  }
                  data-testid="channel-form-model-mapping"
                />
                <Form.Input field="test_model" label={t('form.testModel')} placeholder={t('form.testModelPlaceholder')} />
                <Form.Switch field="auto_ban" label={t('form.autoBan')} extraText={t('form.autoBanHint')} />
                <Form.TextArea
                  field="status_code_mapping"
                  label={t('form.statusCodeMapping')}
                  placeholder={t('form.statusCodeMappingPlaceholder')}
                  autosize={{ minRows: 3, maxRows: 8 }}
                  className="mg-mono"
                  rules={[{ validator: (_rule, value: string) => isJsonObjectOrEmpty(value), message: t('form.errors.statusCodeMapping') }]}
                  data-testid="channel-form-status-code-mapping"
                />
                <Form.TextArea
                  field="header_override"
                  label={t('form.headerOverride')}
                  placeholder={t('form.headerOverridePlaceholder')}
                  autosize={{ minRows: 2, maxRows: 8 }}
                  className="mg-mono"
                  rules={[{ validator: (_rule, value: string) => isJsonObjectOrEmpty(value), message: t('form.errors.headerOverride') }]}
                  data-testid="channel-form-header-override"
                />
                {channelTypeInfo(values.type)?.openaiCompatible && (
                  <Form.Select
                    field="responses_api"
                    label={t('form.responsesApi')}
                    optionList={[
                      { value: '', label: t('form.responsesApiByType') },
                      { value: 'native', label: t('form.responsesApiNative') },
                      { value: 'chat', label: t('form.responsesApiChat') },
                    ]}
                    extraText={t('form.responsesApiHint')}
                    style={{ width: '100%' }}
                    data-testid="channel-form-responses-api"
                  />
                )}
                <Form.Input field="tag" label={t('form.tag')} placeholder={t('form.tagPlaceholder')} />
                <div className="mg-channel-form-row">
                  <Form.InputNumber field="priority" label={t('form.priority')} precision={0} min={-999} style={{ width: '100%' }} />
                  <Form.InputNumber field="weight" label={t('form.weight')} precision={0} min={0} style={{ width: '100%' }} />
                </div>
              </>
            );
          }}
        </Form>
      )}
    </FormDrawer>
  );
}

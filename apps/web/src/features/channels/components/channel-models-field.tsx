import { Button, Form, Input, Space, Toast } from '@douyinfe/semi-ui';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchUpstreamModels, rethrowUnlessApiError, type CatalogueModel } from '../api';
import { addCustomModels, keyLines, presetModelsFor } from '../channel-rules';

interface ChannelModelsFieldProps {
  /** The form's current values that matter here. */
  values: { type: number; models: string[]; base_url: string; key: string };
  setModels: (models: string[]) => void;
  catalogue: CatalogueModel[];
  /** Set when editing: an empty key field then fetches with the stored key. */
  channelId?: number;
}

/**
 * The model multi-select with its helpers: related or all known models, the upstream's own
 * /v1/models list, clearing, and custom names (duplicates are refused, spec 02 §5).
 */
export function ChannelModelsField({ values, setModels, catalogue, channelId }: ChannelModelsFieldProps) {
  const { t } = useTranslation('channels');
  const [custom, setCustom] = useState('');
  const [fetched, setFetched] = useState<string[]>([]);
  const [fetching, setFetching] = useState(false);

  const options = useMemo(() => {
    const names = new Set([...catalogue.map((model) => model.id), ...fetched, ...values.models]);
    return [...names].map((name) => ({ value: name, label: name }));
  }, [catalogue, fetched, values.models]);

  const merge = (names: string[]) => setModels([...new Set([...values.models, ...names])]);

  const fillRelated = () => {
    const related = presetModelsFor(values.type) ?? catalogue.filter((model) => model.channel_types.includes(values.type)).map((model) => model.id);
    if (related.length === 0) {
      Toast.info(t('form.noRelated'));
      return;
    }
    merge(related);
  };

  const fetchFromUpstream = async () => {
    if (channelId === undefined && keyLines(values.key).length === 0) {
      Toast.warning(t('form.fetchNeedsKey'));
      return;
    }
    setFetching(true);
    try {
      const models = await fetchUpstreamModels({ id: channelId, type: values.type, base_url: values.base_url.trim(), key: values.key });
      if (models.length === 0) {
        Toast.info(t('form.fetchEmpty'));
        return;
      }
      setFetched(models);
      merge(models);
      Toast.success(t('form.fetchSuccess', { count: models.length }));
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setFetching(false);
    }
  };

  const addCustom = () => {
    if (custom.trim() === '') return;
    const result = addCustomModels(values.models, custom);
    if (result.duplicate) {
      Toast.error(t('form.errors.duplicateModels'));
      return;
    }
    setModels(result.models);
    setCustom('');
  };

  return (
    <>
      <Form.Select
        field="models"
        label={t('form.models')}
        placeholder={t('form.modelsPlaceholder')}
        multiple
        filter
        allowCreate
        maxTagCount={24}
        optionList={options}
        style={{ width: '100%' }}
        rules={[{ required: true, type: 'array', min: 1, message: t('form.errors.models') }]}
        data-testid="channel-form-models"
      />
      <Space wrap spacing={8} className="mg-channel-model-buttons">
        <Button size="small" theme="light" type="secondary" onClick={fillRelated}>
          {t('form.fillRelated')}
        </Button>
        <Button size="small" theme="light" type="secondary" onClick={() => merge(catalogue.map((model) => model.id))}>
          {t('form.fillAll')}
        </Button>
        <Button size="small" theme="light" type="tertiary" loading={fetching} onClick={() => void fetchFromUpstream()} data-testid="channel-fetch-models">
          {t('form.fetchUpstream')}
        </Button>
        <Button size="small" theme="light" type="warning" onClick={() => setModels([])}>
          {t('form.clearModels')}
        </Button>
      </Space>
      <Input
        className="mg-channel-custom-model"
        placeholder={t('form.customModel')}
        value={custom}
        onChange={setCustom}
        onEnterPress={(event) => {
          event.preventDefault();
          addCustom();
        }}
        addonAfter={
          <Button theme="borderless" size="small" onClick={addCustom} data-testid="channel-add-custom-model">
            {t('form.addCustom')}
          </Button>
        }
        data-testid="channel-custom-model"
      />
    </>
  );
}

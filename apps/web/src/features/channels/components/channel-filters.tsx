import { Button, Input, Select, Space } from '@douyinfe/semi-ui';
import { IconSearch } from '@douyinfe/semi-icons';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

export interface ChannelFilterValues {
  keyword: string;
  model: string;
  group: string;
}

interface ChannelFiltersProps {
  values: ChannelFilterValues;
  groups: string[];
  loading: boolean;
  onSearch: (values: ChannelFilterValues) => void;
}

/** Spec 02 §2: search by keyword (ID, name, key), by model keyword and by group. */
export function ChannelFilters({ values, groups, loading, onSearch }: ChannelFiltersProps) {
  const { t } = useTranslation('channels');
  const [draft, setDraft] = useState(values);
  useEffect(() => setDraft(values), [values]);

  const submit = () => onSearch({ keyword: draft.keyword.trim(), model: draft.model.trim(), group: draft.group });
  const reset = () => onSearch({ keyword: '', model: '', group: '' });

  return (
    <form
      className="mg-channel-filters"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Input
        prefix={<IconSearch />}
        placeholder={t('filters.keyword')}
        value={draft.keyword}
        onChange={(keyword) => setDraft((current) => ({ ...current, keyword }))}
        showClear
        data-testid="channel-search-keyword"
      />
      <Input
        placeholder={t('filters.model')}
        value={draft.model}
        onChange={(model) => setDraft((current) => ({ ...current, model }))}
        showClear
        data-testid="channel-search-model"
      />
      <Select
        placeholder={t('filters.group')}
        value={draft.group || undefined}
        onChange={(group) => setDraft((current) => ({ ...current, group: typeof group === 'string' ? group : '' }))}
        optionList={groups.map((group) => ({ value: group, label: group }))}
        showClear
        filter
        data-testid="channel-search-group"
      />
      <Space spacing={8}>
        <Button htmlType="submit" type="primary" theme="solid" loading={loading} data-testid="channel-search-submit">
          {t('filters.search')}
        </Button>
        <Button onClick={reset}>{t('filters.reset')}</Button>
      </Space>
    </form>
  );
}

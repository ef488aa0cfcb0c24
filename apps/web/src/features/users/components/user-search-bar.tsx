import { Button, Input, Select } from '@douyinfe/semi-ui';
import { IconSearch } from '@douyinfe/semi-icons';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

interface UserSearchBarProps {
  keyword: string;
  group: string;
  groups: string[];
  loading: boolean;
  onSearch: (filters: { keyword: string; group: string }) => void;
}

/** Keyword and group filters; they apply on 查询 / Enter and live in the URL (page reloads keep them). */
export function UserSearchBar({ keyword, group, groups, loading, onSearch }: UserSearchBarProps) {
  const { t } = useTranslation('users');
  const [draftKeyword, setDraftKeyword] = useState(keyword);
  const [draftGroup, setDraftGroup] = useState(group);

  // Back/forward navigation changes the URL under the form.
  useEffect(() => setDraftKeyword(keyword), [keyword]);
  useEffect(() => setDraftGroup(group), [group]);

  const search = () => onSearch({ keyword: draftKeyword.trim(), group: draftGroup });
  const reset = () => {
    setDraftKeyword('');
    setDraftGroup('');
    onSearch({ keyword: '', group: '' });
  };

  return (
    <div className="mg-users-search" role="search">
      <Input
        className="mg-users-keyword"
        prefix={<IconSearch />}
        value={draftKeyword}
        onChange={setDraftKeyword}
        onEnterPress={search}
        placeholder={t('search.keywordPlaceholder')}
        aria-label={t('search.keyword')}
        showClear
      />
      <Select
        className="mg-users-group"
        value={draftGroup || undefined}
        onChange={(value) => setDraftGroup(typeof value === 'string' ? value : '')}
        placeholder={t('search.groupPlaceholder')}
        aria-label={t('search.group')}
        optionList={groups.map((name) => ({ value: name, label: name }))}
        showClear
        filter
      />
      <Button type="primary" theme="solid" loading={loading} onClick={search}>
        {t('search.submit')}
      </Button>
      <Button onClick={reset}>{t('search.reset')}</Button>
    </div>
  );
}

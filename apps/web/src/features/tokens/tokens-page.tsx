import { Banner, Button, Empty, Input, Space, Table, Toast, Typography } from '@douyinfe/semi-ui';
import { IconCopy, IconKey, IconPlus, IconSearch } from '@douyinfe/semi-icons';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../lib/clipboard';
import { useQuotaFormatter } from '../../lib/quota';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { useUrlFilters } from '../../lib/use-url-filters';
import { serverAddressOf } from '../chat/chat-links';
import { useStatus } from '../status/queries';
import { deleteToken, fetchTokenKey, fetchTokenKeys, rethrowUnlessApiError, setTokenStatus, type Token } from './api';
import { chatMenu } from './chat-menu';
import { tokenColumns } from './components/token-columns';
import { CreatedKeysModal, type CreatedKeys } from './components/created-keys-modal';
import { TokenDrawer } from './components/token-drawer';
import { useRefreshTokens, useTokenList } from './queries';
import { tokensAsText } from './token-rules';
import './tokens.css';
import { columnsWidth } from '../../components/shared/table-columns';
import { useTablePagination } from '../../components/shared/table-pagination';

const readFilters = (params: URLSearchParams) => ({ keyword: params.get('keyword') ?? '', token: params.get('token') ?? '' });

export default function TokensPage() {
  const { t } = useTranslation('tokens');
  const status = useStatus();
  const { filters, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(readFilters);
  const [drawer, setDrawer] = useState<'add' | Token | null>(null);
  const [selected, setSelected] = useState<Token[]>([]);
  const [created, setCreated] = useState<CreatedKeys | null>(null);
  // Full keys the user chose to view: component state, gone on hide or when the page closes.
  const [revealedKeys, setRevealedKeys] = useState<ReadonlyMap<number, string>>(new Map());
  const refresh = useRefreshTokens();
  const formatQuota = useQuotaFormatter();
  const narrow = useNarrowScreen();

  const { keyword, token: tokenFilter } = filters;
  const list = useTokenList({ page, pageSize, keyword, token: tokenFilter });

  const [draft, setDraft] = useState({ keyword, token: tokenFilter });
  useEffect(() => setDraft({ keyword, token: tokenFilter }), [keyword, tokenFilter]);

  const onToggleKey = useCallback(
    async (token: Token) => {
      if (revealedKeys.has(token.id)) {
        setRevealedKeys((current) => {
          const next = new Map(current);
          next.delete(token.id);
          return next;
        });
        return;
      }
      const key = await fetchTokenKey(token.id);
      setRevealedKeys((current) => new Map(current).set(token.id, key));
    },
    [revealedKeys],
  );

  const onDelete = useCallback(
    async (token: Token) => {
      await deleteToken(token.id);
      Toast.success(t('messages.deleted'));
      setSelected((current) => current.filter((item) => item.id !== token.id));
      setRevealedKeys((current) => {
        const next = new Map(current);
        next.delete(token.id);
        return next;
      });
      await refresh();
    },
    [t, refresh],
  );

  const onSetStatus = useCallback(
    async (token: Token, next: number) => {
      await setTokenStatus(token.id, next);
      Toast.success(t('messages.statusChanged'));
      await refresh();
    },
    [t, refresh],
  );

  const copySelected = async () => {
    if (selected.length === 0) return void Toast.error(t('messages.selectFirst'));
    try {
      await copyWithFeedback(tokensAsText(selected, await fetchTokenKeys(selected.map((token) => token.id))));
    } catch (error) {
      rethrowUnlessApiError(error);
    }
  };

  const chat = useMemo(() => chatMenu(status), [status]);
  const columns = useMemo(
    () =>
      tokenColumns({
        t,
        formatQuota,
        revealedKeys,
        onToggleKey,
        chat,
        serverAddress: serverAddressOf(status),
        onEdit: setDrawer,
        onDelete,
        onSetStatus,
        narrow,
      }),
    [t, formatQuota, revealedKeys, onToggleKey, chat, status, onDelete, onSetStatus, narrow],
  );

  const pagination = useTablePagination({ page, pageSize, total: list.data?.total ?? 0, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-page mg-token-page">
      <Typography.Title heading={4} className="mg-token-title">
        {t('title')}
      </Typography.Title>
      <Banner type="warning" closeIcon={null} description={t('warning')} className="mg-token-warning" data-testid="token-warning" />
      <div className="mg-token-toolbar">
        <form
          className="mg-token-search"
          onSubmit={(event) => {
            event.preventDefault();
            setFilters({ keyword: draft.keyword.trim(), token: draft.token.trim() });
          }}
        >
          <Input
            prefix={<IconSearch />}
            placeholder={t('search.keyword')}
            value={draft.keyword}
            onChange={(value) => setDraft((current) => ({ ...current, keyword: value }))}
            showClear
            data-testid="token-search-keyword"
          />
          <Input
            prefix={<IconKey />}
            placeholder={t('search.key')}
            value={draft.token}
            onChange={(value) => setDraft((current) => ({ ...current, token: value }))}
            showClear
            data-testid="token-search-key"
          />
          <Button htmlType="submit" type="primary" theme="solid" loading={list.isFetching} data-testid="token-search-submit">
            {t('search.submit')}
          </Button>
        </form>
        <Space spacing={8}>
          <Button theme="solid" type="primary" icon={<IconPlus />} onClick={() => setDrawer('add')} data-testid="token-add">
            {t('actions.add')}
          </Button>
          {!narrow && (
            <Button icon={<IconCopy />} onClick={() => void copySelected()} data-testid="token-copy-selected">
              {t('actions.copySelected')}
            </Button>
          )}
        </Space>
      </div>
      <Table<Token>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isLoading}
        size="small"
        scroll={narrow ? undefined : { x: columnsWidth(columns) + 48 }}
        empty={<Empty description={t('empty')} />}
        // Phones keep the columns a row needs; picking rows to copy is a desktop task.
        rowSelection={
          narrow
            ? undefined
            : {
                selectedRowKeys: selected.map((token) => token.id),
                onChange: (_keys, rows) => setSelected(rows ?? []),
              }
        }
        onRow={(token) => ({ 'data-testid': token ? `token-row-${token.id}` : undefined }) as object}
        pagination={pagination}
      />
      <TokenDrawer target={drawer} onClose={() => setDrawer(null)} onSaved={refresh} onCreated={setCreated} />
      <CreatedKeysModal created={created} onClose={() => setCreated(null)} />
    </div>
  );
}

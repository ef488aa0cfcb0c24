import { Empty, Table, Toast, Typography } from '@douyinfe/semi-ui';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useQuotaFormatter } from '../../lib/quota';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { readString, StorageKey, writeString } from '../../lib/storage';
import { useUrlFilters } from '../../lib/use-url-filters';
import { deleteChannels, deleteDisabledChannels, fixAbilities, testAllChannels, updateAllBalances, type Channel } from './api';
import { toTableRows, type TableRow } from './channel-display';
import { BatchTagModal } from './components/batch-tag-modal';
import { channelColumns } from './components/channel-columns';
import { ChannelDrawer } from './components/channel-drawer';
import { ChannelFilters, type ChannelFilterValues } from './components/channel-filters';
import { ChannelToolbar, type ToolbarToggles } from './components/channel-toolbar';
import { TagEditModal } from './components/tag-edit-modal';
import { ChannelKeysModal } from './components/channel-keys-modal';
import { useChannelList, useGroups, useRefreshChannels } from './queries';
import { useChannelActions } from './use-channel-actions';
import './channels.css';
import { columnsWidth } from '../../components/shared/table-columns';
import { useTablePagination } from '../../components/shared/table-pagination';

/** The drawer follows the address: /channel/add and /channel/edit/:id open it over the list. */
function useDrawerTarget(): 'add' | number | null {
  const { pathname } = useLocation();
  const { id } = useParams();
  if (pathname.startsWith('/channel/add')) return 'add';
  if (id !== undefined && /^\d+$/.test(id)) return Number(id);
  return null;
}

const readFilters = (params: URLSearchParams): ChannelFilterValues => ({
  keyword: params.get('keyword') ?? '',
  model: params.get('model') ?? '',
  group: params.get('group') ?? '',
});

export default function ChannelsPage() {
  const { t } = useTranslation('channels');
  const navigate = useNavigate();
  const { params, filters, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(readFilters);
  const [idSort, setIdSort] = useState(() => readString(StorageKey.idSort) === 'true');
  const [batch, setBatch] = useState(false);
  const [selectedIds, setSelectedIds] = useState<number[]>([]);
  const [editingTag, setEditingTag] = useState<string | null>(null);
  const [keysChannel, setKeysChannel] = useState<Channel | null>(null);
  const [batchTagOpen, setBatchTagOpen] = useState(false);
  const drawerTarget = useDrawerTarget();
  const refresh = useRefreshChannels();
  const actions = useChannelActions();
  const formatQuota = useQuotaFormatter();
  const groups = useGroups();
  const narrow = useNarrowScreen();

  const tagMode = params.get('tag_mode') === 'true';
  const list = useChannelList({ page, pageSize, ...filters, idSort, tagMode });

  // The list's filters and page stay in the address while the drawer is open and after it closes.
  const openDrawer = useCallback((path: string) => navigate({ pathname: path, search: params.toString() }), [navigate, params]);
  const closeDrawer = useCallback(() => navigate({ pathname: '/channel', search: params.toString() }), [navigate, params]);
  const onEdit = useCallback((channel: Channel) => openDrawer(`/channel/edit/${channel.id}`), [openDrawer]);

  const onToggle = (name: keyof ToolbarToggles, value: boolean) => {
    if (name === 'idSort') {
      writeString(StorageKey.idSort, String(value));
      setIdSort(value);
    } else if (name === 'batch') {
      setBatch(value);
      setSelectedIds([]);
    } else {
      setSelectedIds([]);
      setFilters({ tag_mode: value ? 'true' : null });
    }
  };

  const onSearch = (values: ChannelFilterValues) => setFilters({ ...values });

  const onTestAll = async () => {
    await testAllChannels();
    Toast.success(t('messages.testAllStarted'));
  };
  const onUpdateAllBalances = async () => {
    const result = await updateAllBalances();
    Toast.success(t('messages.allBalancesUpdated', { ...result }));
    await refresh();
  };
  const onDeleteDisabled = async () => {
    const count = await deleteDisabledChannels();
    Toast.success(t('messages.deletedDisabled', { count }));
    await refresh();
  };
  const onFix = async () => {
    const result = await fixAbilities();
    Toast.success(t('messages.fixed', { ...result }));
    await refresh();
  };
  const onDeleteSelected = async () => {
    if (selectedIds.length === 0) {
      Toast.error(t('messages.selectToDelete'));
      return;
    }
    const count = await deleteChannels(selectedIds);
    Toast.success(t('messages.deletedSelected', { count }));
    setSelectedIds([]);
    await refresh();
  };
  const onBatchTag = () => {
    if (selectedIds.length === 0) {
      Toast.error(t('messages.selectToTag'));
      return;
    }
    setBatchTagOpen(true);
  };

  const rows = useMemo(() => toTableRows(list.data?.items ?? [], tagMode), [list.data, tagMode]);
  const columns = useMemo(
    () => channelColumns({ t, actions, formatQuota, onEdit, onEditTag: setEditingTag, onManageKeys: setKeysChannel, narrow }),
    [t, actions, formatQuota, onEdit, narrow],
  );

  const pagination = useTablePagination({ page, pageSize, total: list.data?.total ?? 0, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-page mg-channel-page">
      <Typography.Title heading={4} className="mg-page-title">
        {t('title')}
      </Typography.Title>
      <ChannelFilters values={filters} groups={groups.data ?? []} loading={list.isFetching} onSearch={onSearch} />
      <ChannelToolbar
        toggles={{ idSort, batch, tagMode }}
        onToggle={onToggle}
        onAdd={() => openDrawer('/channel/add')}
        onRefresh={() => void refresh()}
        refreshing={list.isFetching}
        onTestAll={onTestAll}
        onUpdateAllBalances={onUpdateAllBalances}
        onDeleteDisabled={onDeleteDisabled}
        onFix={onFix}
        selectedCount={selectedIds.length}
        onDeleteSelected={onDeleteSelected}
        onBatchTag={onBatchTag}
      />
      <Table<TableRow>
        className="mg-channel-table"
        rowKey="key"
        columns={columns}
        dataSource={rows}
        loading={list.isLoading}
        size="small"
        scroll={narrow ? undefined : { x: columnsWidth(columns) }}
        empty={<Empty description={t('empty')} />}
        onRow={(row) => {
          const disabled = row?.kind === 'channel' && row.channel.status !== 1;
          return { className: disabled ? 'mg-channel-row-disabled' : undefined, 'data-testid': row ? `channel-row-${row.key}` : undefined } as object;
        }}
        rowSelection={
          batch
            ? {
                selectedRowKeys: selectedIds.map((id) => `channel-${id}`),
                getCheckboxProps: (row: TableRow) => ({ disabled: row.kind === 'tag' }),
                onChange: (_keys, selected) => setSelectedIds((selected ?? []).flatMap((row) => (row.kind === 'channel' ? [row.channel.id] : []))),
              }
            : undefined
        }
        pagination={pagination}
      />
      <ChannelDrawer target={drawerTarget} onClose={closeDrawer} onSaved={refresh} />
      <TagEditModal tag={editingTag} onClose={() => setEditingTag(null)} onSaved={refresh} />
      <ChannelKeysModal channel={keysChannel} onClose={() => setKeysChannel(null)} onChanged={refresh} />
      <BatchTagModal visible={batchTagOpen} selectedIds={selectedIds} onClose={() => setBatchTagOpen(false)} onSaved={refresh} />
    </div>
  );
}

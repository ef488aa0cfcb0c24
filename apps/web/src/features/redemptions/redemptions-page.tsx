import { Button, Card, Empty, Input, Table, Toast, Typography } from '@douyinfe/semi-ui';
import { IconCopy, IconPlus, IconRefresh, IconSearch } from '@douyinfe/semi-icons';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../lib/clipboard';
import { useQuotaFormatter } from '../../lib/quota';
import { useUrlFilters } from '../../lib/use-url-filters';
import type { Redemption } from './api';
import { CreatedKeysModal } from './components/created-keys-modal';
import { RedemptionFormModal } from './components/redemption-form-modal';
import { RedemptionRowActions } from './components/redemption-row-actions';
import { RedemptionStatusTag } from './components/redemption-status-tag';
import { formatTimestamp } from '../../lib/date-time';
import { codesAsText } from './format';
import { useRedemptionList } from './queries';
import './redemptions.css';
import { columnsForScreen } from '../../components/shared/table-columns';
import { useTablePagination } from '../../components/shared/table-pagination';
import { useNarrowScreen } from '../../lib/use-narrow-screen';

type FormState = { mode: 'closed' } | { mode: 'create' } | { mode: 'edit'; row: Redemption };

/** Paging and the keyword live in the URL (p, keyword) so a reload or a shared link shows the same rows. */
const readKeyword = (params: URLSearchParams) => params.get('keyword') ?? '';

/** What a phone keeps: the name, the status and the actions. */
const PHONE_COLUMNS = ['name', 'status', 'actions'];

export default function RedemptionsPage() {
  const { t } = useTranslation('redemptions');
  const formatQuota = useQuotaFormatter();
  const { filters: keyword, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(readKeyword, { replace: true });
  const [draftKeyword, setDraftKeyword] = useState(keyword);
  const [selected, setSelected] = useState<Redemption[]>([]);
  const [form, setForm] = useState<FormState>({ mode: 'closed' });
  const [createdKeys, setCreatedKeys] = useState<string[]>([]);

  const list = useRedemptionList({ page, pageSize, keyword });
  const rows = list.data?.items ?? [];
  const total = list.data?.total ?? 0;

  // A selection belongs to the rows on screen; another page or search starts empty.
  useEffect(() => setSelected([]), [page, keyword, pageSize]);
  useEffect(() => setDraftKeyword(keyword), [keyword]);

  // Deleting the last row of the last page must not strand the user on an empty page.
  useEffect(() => {
    if (list.data && rows.length === 0 && total > 0 && page > 1) {
      setPage(Math.max(1, Math.ceil(total / pageSize)));
    }
  });

  const narrow = useNarrowScreen();
  const columns: ColumnProps<Redemption>[] = useMemo(
    () =>
      columnsForScreen<Redemption>(
        [
          { title: t('columns.id'), dataIndex: 'id' },
          { title: t('columns.name'), dataIndex: 'name', render: (name: string) => <span className="mg-redemption-name">{name}</span> },
          { title: t('columns.status'), dataIndex: 'status', render: (status: number) => <RedemptionStatusTag status={status} /> },
          { title: t('columns.quota'), dataIndex: 'quota', render: (quota: number) => <span className="mg-nowrap">{formatQuota(quota)}</span> },
          { title: t('columns.createdTime'), dataIndex: 'created_time', render: (time: number) => <span className="mg-nowrap">{formatTimestamp(time)}</span> },
          {
            title: t('columns.redeemer'),
            dataIndex: 'used_user_id',
            render: (userId: number) => (userId === 0 ? t('none') : userId),
          },
          {
            title: t('columns.actions'),
            dataIndex: 'actions',
            render: (_: unknown, row: Redemption) => <RedemptionRowActions row={row} onEdit={(target) => setForm({ mode: 'edit', row: target })} />,
          },
        ],
        narrow,
        PHONE_COLUMNS,
      ),
    [t, formatQuota, narrow],
  );

  const search = () => setFilters({ keyword: draftKeyword.trim() });

  const copySelected = () => {
    if (selected.length === 0) {
      Toast.error(t('selectAtLeastOne'));
      return;
    }
    void copyWithFeedback(codesAsText(selected));
  };

  const pagination = useTablePagination({ page, pageSize, total, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-page mg-redemptions">
      <Card bordered className="mg-page-card">
        <div className="mg-page-heading">
          <div>
            <Typography.Title heading={4}>{t('title')}</Typography.Title>
            <Typography.Text type="tertiary">{t('description')}</Typography.Text>
          </div>
        </div>

        <div className="mg-table-toolbar">
          <form
            className="mg-table-search"
            onSubmit={(event) => {
              event.preventDefault();
              search();
            }}
          >
            <Input
              prefix={<IconSearch />}
              placeholder={t('search.placeholder')}
              value={draftKeyword}
              onChange={setDraftKeyword}
              showClear
              onClear={() => setFilters({ keyword: null })}
              data-testid="redemption-search"
            />
            <Button htmlType="submit" type="primary" loading={list.isFetching && keyword !== ''}>
              {t('search.submit')}
            </Button>
          </form>
          <div className="mg-table-actions">
            {selected.length > 0 && <Typography.Text type="tertiary">{t('selectedCount', { count: selected.length })}</Typography.Text>}
            <Button icon={<IconRefresh />} onClick={() => void list.refetch()} loading={list.isRefetching} aria-label={t('actions.refresh')} />
            <Button icon={<IconCopy />} type="warning" onClick={copySelected} data-testid="copy-selected">
              {t('actions.copySelected')}
            </Button>
            <Button icon={<IconPlus />} theme="solid" type="primary" onClick={() => setForm({ mode: 'create' })} data-testid="add-redemption">
              {t('actions.add')}
            </Button>
          </div>
        </div>

        <Table<Redemption>
          rowKey="id"
          columns={columns}
          dataSource={rows}
          loading={list.isPending || (list.isFetching && list.isPlaceholderData)}
          scroll={{ x: 'max-content' }}
          empty={<Empty description={t('empty')} />}
          rowSelection={{
            selectedRowKeys: selected.map((row) => row.id),
            onChange: (_keys, selectedRows) => setSelected((selectedRows ?? []).filter((row): row is Redemption => Boolean(row))),
          }}
          pagination={pagination}
        />
      </Card>

      <RedemptionFormModal
        visible={form.mode !== 'closed'}
        editing={form.mode === 'edit' ? form.row : null}
        onClose={() => setForm({ mode: 'closed' })}
        onCreated={(keys) => {
          setForm({ mode: 'closed' });
          setCreatedKeys(keys);
        }}
      />
      <CreatedKeysModal keys={createdKeys} onClose={() => setCreatedKeys([])} />
    </div>
  );
}

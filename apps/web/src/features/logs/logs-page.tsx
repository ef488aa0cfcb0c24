import { Empty, Space, Table, Tag, Typography } from '@douyinfe/semi-ui';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../lib/quota';
import { useSessionRoles } from '../../lib/session';
import { type ParamChanges, useUrlFilters } from '../../lib/use-url-filters';
import type { LogEntry, LogFilters } from './api';
import { ClearLogsButton } from './components/clear-logs-button';
import { ExportLogsButton } from './components/export-logs-button';
import { DETAILS_MIN_WIDTH, logColumns } from './components/log-columns';
import { LogColumnPicker } from './components/log-column-picker';
import { LogDetails } from './components/log-details';
import { LogFilterBar } from './components/log-filters';
import { UserInfoModal } from './components/user-info-modal';
import { filtersFromParams } from './log-rules';
import { useLogList, useLogStat, useRefreshLogs } from './queries';
import './logs.css';
import { columnsWidth } from '../../components/shared/table-columns';
import { useTablePagination } from '../../components/shared/table-pagination';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { useLogColumns } from './use-log-columns';

/** URL names of the filters (the page is `p`), so a filtered page can be shared and reloaded. */
const PARAM_NAMES: Record<keyof LogFilters, string> = {
  type: 'type',
  tokenName: 'token_name',
  modelName: 'model_name',
  group: 'group',
  start: 'start',
  end: 'end',
  channel: 'channel',
  username: 'username',
};

export default function LogsPage() {
  const { t } = useTranslation('logs');
  const { admin } = useSessionRoles();
  const { filters, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(filtersFromParams);
  const [userInfo, setUserInfo] = useState<number | null>(null);
  const formatQuota = useQuotaFormatter();
  const refresh = useRefreshLogs();

  const list = useLogList({ ...filters, page, pageSize, admin });
  const stat = useLogStat(filters, admin);

  const applyFilters = useCallback(
    (next: LogFilters) => {
      const changes: ParamChanges = {};
      for (const [key, name] of Object.entries(PARAM_NAMES)) {
        const value = String(next[key as keyof LogFilters]);
        // 0 is "any" for the type, the range and the channel: the address leaves it out.
        changes[name] = value === '0' ? null : value;
      }
      setFilters(changes);
    },
    [setFilters],
  );

  const narrow = useNarrowScreen();
  const [visibleColumns, setVisibleColumns] = useLogColumns(admin);
  const columns = useMemo(
    () => logColumns({ t, admin, visible: visibleColumns, narrow, formatQuota, onUser: setUserInfo }),
    [t, admin, visibleColumns, narrow, formatQuota],
  );

  const pagination = useTablePagination({ page, pageSize, total: list.data?.total ?? 0, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-page mg-log-page">
      <div className="mg-log-header">
        <Typography.Title heading={4}>{t('title')}</Typography.Title>
        <Space wrap spacing={8} data-testid="log-stat">
          <Tag size="large" color="blue" data-testid="log-stat-quota">
            {t('stat.quota', { value: formatQuota(stat.data?.quota ?? 0) })}
          </Tag>
          <Tag size="large" color="pink" data-testid="log-stat-rpm">
            {t('stat.rpm', { value: stat.data?.rpm ?? 0 })}
          </Tag>
          <Tag size="large" color="white" data-testid="log-stat-tpm">
            {t('stat.tpm', { value: stat.data?.tpm ?? 0 })}
          </Tag>
        </Space>
        <Space wrap spacing={8}>
          {!narrow && <LogColumnPicker admin={admin} value={visibleColumns} onChange={setVisibleColumns} />}
          {admin && <ClearLogsButton onCleared={refresh} />}
        </Space>
      </div>
      <LogFilterBar
        filters={filters}
        admin={admin}
        searching={list.isFetching}
        onSubmit={applyFilters}
        actions={<ExportLogsButton filters={filters} admin={admin} />}
      />
      <Table<LogEntry>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isLoading}
        size="small"
        scroll={narrow ? undefined : { x: columnsWidth(columns) + (visibleColumns.content ? DETAILS_MIN_WIDTH : 0) }}
        empty={<Empty description={t('empty')} />}
        expandedRowRender={(row) => (row ? <LogDetails row={row} /> : null)}
        rowExpandable={(row) => !!row}
        onRow={(row) => ({ 'data-testid': row ? `log-row-${row.id}` : undefined }) as object}
        pagination={pagination}
      />
      <UserInfoModal userId={userInfo} onClose={() => setUserInfo(null)} />
    </div>
  );
}

import { Empty, Table, Typography } from '@douyinfe/semi-ui';
import { useCallback, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../lib/quota';
import { type ParamChanges, useUrlFilters } from '../../lib/use-url-filters';
import type { AuditEntry, AuditFilters } from './api';
import { filtersFromParams } from './audit-rules';
import { auditColumns } from './components/audit-columns';
import { AuditDetails } from './components/audit-details';
import { AuditFilterBar } from './components/audit-filters';
import { useAuditLog } from './queries';
import './audit.css';
import { useTablePagination } from '../../components/shared/table-pagination';
import { useNarrowScreen } from '../../lib/use-narrow-screen';

/** URL names of the filters (the page is `p`). */
const PARAM_NAMES: Record<keyof AuditFilters, string> = {
  action: 'action',
  actor: 'actor',
  targetType: 'target_type',
  targetId: 'target_id',
  ip: 'ip',
  start: 'start',
  end: 'end',
};

/** The audit log (admins): read only, newest first, each row expandable to its before/after. */
export default function AuditPage() {
  const { t } = useTranslation('audit');
  const { filters, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(filtersFromParams);
  const formatQuota = useQuotaFormatter();
  const list = useAuditLog({ ...filters, page, pageSize });

  const applyFilters = useCallback(
    (next: AuditFilters) => {
      const changes: ParamChanges = {};
      for (const [key, name] of Object.entries(PARAM_NAMES)) {
        const value = String(next[key as keyof AuditFilters]);
        changes[name] = value === '0' ? null : value;
      }
      setFilters(changes);
    },
    [setFilters],
  );

  const narrow = useNarrowScreen();
  const columns = useMemo(() => auditColumns({ t, narrow, formatQuota }), [t, narrow, formatQuota]);

  const pagination = useTablePagination({ page, pageSize, total: list.data?.total ?? 0, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-page mg-audit-page">
      <div className="mg-audit-header">
        <Typography.Title heading={4}>{t('title')}</Typography.Title>
        <Typography.Text type="tertiary">{t('description')}</Typography.Text>
      </div>
      <AuditFilterBar filters={filters} searching={list.isFetching} onSubmit={applyFilters} />
      <Table<AuditEntry>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isLoading}
        size="small"
        scroll={narrow ? undefined : { x: 1000 }}
        empty={<Empty description={t('empty')} />}
        expandedRowRender={(row) => (row ? <AuditDetails entry={row} /> : null)}
        rowExpandable={(row) => !!row}
        onRow={(row) => ({ 'data-testid': row ? `audit-row-${row.id}` : undefined }) as object}
        pagination={pagination}
      />
    </div>
  );
}

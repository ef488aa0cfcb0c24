import { Tag, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import type { TFunction } from 'i18next';
import { DateTimeCell } from '../../../components/shared/date-time-cell';
import { columnsForScreen } from '../../../components/shared/table-columns';
import type { AuditEntry } from '../api';
import { actionName, auditSummary, isAuditTarget, roleKey } from '../audit-rules';

interface ColumnContext {
  t: TFunction<'audit'>;
  /** Phones: the time, the action and its summary. */
  narrow: boolean;
  formatQuota: (quota: number) => string;
}

const ROLE_COLOURS = { user: 'grey', admin: 'blue', root: 'orange' } as const;

const PHONE_COLUMNS = ['created_at', 'action', 'summary'];

export function auditColumns(context: ColumnContext): ColumnProps<AuditEntry>[] {
  return columnsForScreen(allColumns(context), context.narrow, PHONE_COLUMNS);
}

function allColumns({ t, formatQuota }: ColumnContext): ColumnProps<AuditEntry>[] {
  return [
    { title: t('columns.time'), dataIndex: 'created_at', width: 128, render: (_, row) => <DateTimeCell seconds={row.created_at} /> },
    {
      title: t('columns.actor'),
      dataIndex: 'actor_username',
      width: 150,
      render: (_, row) => (
        <span className="mg-audit-actor">
          <Typography.Text>{row.actor_username || '-'}</Typography.Text>
          <Tag size="small" color={ROLE_COLOURS[roleKey(row.actor_role)]}>
            {t(`roles.${roleKey(row.actor_role)}`)}
          </Tag>
        </span>
      ),
    },
    { title: t('columns.ip'), dataIndex: 'ip', width: 120 },
    {
      title: t('columns.action'),
      dataIndex: 'action',
      width: 160,
      render: (_, row) => (
        <Tag color={row.action.startsWith('admin.login_failed') ? 'red' : 'light-blue'} data-testid={`audit-action-${row.id}`}>
          {actionName(t, row.action)}
        </Tag>
      ),
    },
    {
      title: t('columns.target'),
      dataIndex: 'target_id',
      width: 110,
      render: (_, row) =>
        row.target_type
          ? `${isAuditTarget(row.target_type) ? t(`targets.${row.target_type}`) : row.target_type}${row.target_id ? ` ${row.target_id}` : ''}`
          : '-',
    },
    {
      title: t('columns.summary'),
      dataIndex: 'summary',
      render: (_, row) => <span data-testid={`audit-summary-${row.id}`}>{auditSummary(t, row, formatQuota)}</span>,
    },
  ];
}

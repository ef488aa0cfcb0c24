import { Tag, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import type { TFunction } from 'i18next';
import { DateTimeCell } from '../../../components/shared/date-time-cell';
import { columnsForScreen } from '../../../components/shared/table-columns';
import type { LogColumnChoice, LogColumnKey } from '../use-log-columns';
import type { LogEntry } from '../api';
import { describeLog, firstTokenColour, parseOther, rowTypeKey, TYPE_COLOURS, logUseTimeColour } from '../log-rules';

interface ColumnContext {
  t: TFunction<'logs'>;
  admin: boolean;
  /** The columns the user chose to see (the column picker). */
  visible: LogColumnChoice;
  /** Phones: the time, the model and the cost; the rest is in the expanded row. */
  narrow: boolean;
  formatQuota: (quota: number) => string;
  onUser: (userId: number) => void;
}

const PHONE_COLUMNS: LogColumnKey[] = ['created_at', 'model_name', 'quota'];

/** The width the details column gets at least; it takes whatever the others leave. */
export const DETAILS_MIN_WIDTH = 150;

function Ellipsis({ text }: { text: string }) {
  return (
    <Typography.Text ellipsis={{ showTooltip: true }} className="mg-log-cell-ellipsis">
      {text}
    </Typography.Text>
  );
}

/** Columns of spec 02 §2 that the user keeps in the column picker; the channel and user columns are an admin's only. */
export function logColumns({ t, admin, visible, narrow, formatQuota, onUser }: ColumnContext): ColumnProps<LogEntry>[] {
  const shown = (column: ColumnProps<LogEntry>) => {
    const key = String(column.dataIndex) as LogColumnKey;
    return narrow ? PHONE_COLUMNS.includes(key) : visible[key];
  };
  return columnsForScreen(allColumns({ t, admin, formatQuota, onUser }).filter(shown), narrow, PHONE_COLUMNS);
}

function allColumns({ t, admin, formatQuota, onUser }: Pick<ColumnContext, 't' | 'admin' | 'formatQuota' | 'onUser'>): ColumnProps<LogEntry>[] {
  const columns: (ColumnProps<LogEntry> | false)[] = [
    { title: t('columns.time'), dataIndex: 'created_at', width: 128, render: (_, row) => <DateTimeCell seconds={row.created_at} /> },
    admin && {
      title: t('columns.channel'),
      dataIndex: 'channel',
      width: 72,
      render: (_, row) => (row.channel ? <Tag color="blue">{row.channel}</Tag> : null),
    },
    admin && {
      title: t('columns.user'),
      dataIndex: 'username',
      width: 92,
      render: (_, row) => (
        <Typography.Text link ellipsis={{ showTooltip: true }} onClick={() => onUser(row.user_id)} data-testid={`log-user-${row.id}`}>
          {row.username}
        </Typography.Text>
      ),
    },
    { title: t('columns.token'), dataIndex: 'token_name', width: 92, render: (_, row) => (row.token_name ? <Ellipsis text={row.token_name} /> : null) },
    { title: t('columns.group'), dataIndex: 'group', width: 90, render: (_, row) => (row.group ? <Ellipsis text={row.group} /> : null) },
    {
      title: t('columns.type'),
      dataIndex: 'type',
      width: 104,
      render: (_, row) => {
        const key = rowTypeKey(row.type);
        return <Tag color={TYPE_COLOURS[key]}>{t(`types.${key}`)}</Tag>;
      },
    },
    {
      title: t('columns.model'),
      dataIndex: 'model_name',
      width: 124,
      render: (_, row) => (row.model_name ? <Ellipsis text={row.model_name} /> : null),
    },
    {
      title: t('columns.useTime'),
      dataIndex: 'use_time',
      width: 112,
      render: (_, row) => {
        if (rowTypeKey(row.type) !== 'consume') return null;
        const frt = parseOther(row.other).frt ?? 0;
        return (
          <span className="mg-log-times" data-testid={`log-time-${row.id}`}>
            <Tag color={logUseTimeColour(row.use_time)} data-testid={`log-use-time-${row.id}`}>
              {t('row.seconds', { value: row.use_time })}
            </Tag>
            {row.is_stream && frt > 0 && (
              <Tag color={firstTokenColour(frt)} data-testid={`log-frt-${row.id}`}>
                {t('row.seconds', { value: (frt / 1000).toFixed(1) })}
              </Tag>
            )}
            <Tag color={row.is_stream ? 'blue' : 'purple'}>{row.is_stream ? t('row.stream') : t('row.nonStream')}</Tag>
          </span>
        );
      },
    },
    { title: t('columns.prompt'), dataIndex: 'prompt_tokens', width: 72, render: (_, row) => (row.prompt_tokens ? row.prompt_tokens : '') },
    { title: t('columns.completion'), dataIndex: 'completion_tokens', width: 96, render: (_, row) => (row.completion_tokens ? row.completion_tokens : '') },
    { title: t('columns.quota'), dataIndex: 'quota', width: 80, render: (_, row) => (row.quota ? <strong>{formatQuota(row.quota)}</strong> : '') },
    {
      title: t('columns.details'),
      dataIndex: 'content',
      render: (_, row) => (
        <Typography.Paragraph ellipsis={{ rows: 2, showTooltip: { type: 'popover' } }} data-testid={`log-content-${row.id}`}>
          {describeLog(row, t, formatQuota)}
        </Typography.Paragraph>
      ),
    },
  ];
  return columns.filter((column): column is ColumnProps<LogEntry> => column !== false);
}

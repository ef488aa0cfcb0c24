import { Tag, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import type { TFunction } from 'i18next';
import { formatTimestamp } from '../../../lib/date-time';
import type { LogEntry } from '../api';
import { describeLog, firstTokenColour, parseOther, rowTypeKey, TYPE_COLOURS, logUseTimeColour } from '../log-rules';

interface ColumnContext {
  t: TFunction<'logs'>;
  admin: boolean;
  formatQuota: (quota: number) => string;
  onUser: (userId: number) => void;
}

/** Columns of spec 02 §2; the channel and user columns are an admin's only. */
export function logColumns({ t, admin, formatQuota, onUser }: ColumnContext): ColumnProps<LogEntry>[] {
  const columns: (ColumnProps<LogEntry> | false)[] = [
    { title: t('columns.time'), dataIndex: 'created_at', width: 200, render: (_, row) => formatTimestamp(row.created_at) },
    admin && {
      title: t('columns.channel'),
      dataIndex: 'channel',
      width: 90,
      render: (_, row) => (row.channel ? <Tag color="blue">{row.channel}</Tag> : null),
    },
    admin && {
      title: t('columns.user'),
      dataIndex: 'username',
      width: 120,
      render: (_, row) => (
        <Typography.Text link onClick={() => onUser(row.user_id)} data-testid={`log-user-${row.id}`}>
          {row.username}
        </Typography.Text>
      ),
    },
    { title: t('columns.token'), dataIndex: 'token_name', width: 120, render: (_, row) => (row.token_name ? <Tag color="grey">{row.token_name}</Tag> : null) },
    { title: t('columns.group'), dataIndex: 'group', width: 90, render: (_, row) => (row.group ? <Tag color="white">{row.group}</Tag> : null) },
    {
      title: t('columns.type'),
      dataIndex: 'type',
      width: 90,
      render: (_, row) => {
        const key = rowTypeKey(row.type);
        return <Tag color={TYPE_COLOURS[key]}>{t(`types.${key}`)}</Tag>;
      },
    },
    {
      title: t('columns.model'),
      dataIndex: 'model_name',
      width: 150,
      render: (_, row) => (row.model_name ? <Tag color="light-blue">{row.model_name}</Tag> : null),
    },
    {
      title: t('columns.useTime'),
      dataIndex: 'use_time',
      width: 190,
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
    { title: t('columns.prompt'), dataIndex: 'prompt_tokens', width: 80, render: (_, row) => (row.prompt_tokens ? row.prompt_tokens : '') },
    { title: t('columns.completion'), dataIndex: 'completion_tokens', width: 80, render: (_, row) => (row.completion_tokens ? row.completion_tokens : '') },
    { title: t('columns.quota'), dataIndex: 'quota', width: 100, render: (_, row) => (row.quota ? formatQuota(row.quota) : '') },
    {
      title: t('columns.details'),
      dataIndex: 'content',
      render: (_, row) => (
        <Typography.Paragraph ellipsis={{ rows: 2, showTooltip: { type: 'popover' } }} style={{ maxWidth: 320 }} data-testid={`log-content-${row.id}`}>
          {describeLog(row, t, formatQuota)}
        </Typography.Paragraph>
      ),
    },
  ];
  return columns.filter((column): column is ColumnProps<LogEntry> => column !== false);
}

import { Space, Tag, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import type { TFunction } from 'i18next';
import { columnsForScreen } from '../../../components/shared/table-columns';
import type { Channel } from '../api';
import { averageResponseTime, channelTypeName, sharedValue, splitList, uniqueValues, type TableRow } from '../channel-display';
import type { ChannelActions } from '../use-channel-actions';
import { ChannelBreakerTag } from './channel-breaker-tag';
import { ChannelOverrunTag } from './channel-overrun-tag';
import { ChannelRowActions, TagRowActions } from './channel-row-actions';
import { ChannelKeysTag, ChannelStatusTag, TagStatusTag } from './channel-status-tag';
import { ResponseTimeTag } from './response-time-tag';
import { RowNumberInput } from './row-number-input';
import { UsageCell } from './usage-cell';

interface ColumnOptions {
  t: TFunction<'channels'>;
  actions: ChannelActions;
  formatQuota: (quota: number) => string;
  onEdit: (channel: Channel) => void;
  onEditTag: (tag: string) => void;
  onManageKeys: (channel: Channel) => void;
  /** Phones: only the name, status and actions columns, none fixed. */
  narrow: boolean;
}

function GroupTags({ groups }: { groups: string[] }) {
  return (
    <Space spacing={4} wrap>
      {groups.map((group) => (
        <Tag key={group} size="small" color="blue">
          {group}
        </Tag>
      ))}
    </Space>
  );
}

/** The table columns of spec 02 §2 for channel rows and, in tag mode, tag rows. */
/** What a phone keeps: the name, the status and the actions. */
const PHONE_COLUMNS = ['name', 'status', 'operations'];

export function channelColumns({ t, actions, formatQuota, onEdit, onEditTag, onManageKeys, narrow }: ColumnOptions): ColumnProps<TableRow>[] {
  return columnsForScreen(allColumns({ t, actions, formatQuota, onEdit, onEditTag, onManageKeys, narrow }), narrow, PHONE_COLUMNS);
}

function allColumns({ t, actions, formatQuota, onEdit, onEditTag, onManageKeys, narrow }: ColumnOptions): ColumnProps<TableRow>[] {
  return [
    {
      title: t('columns.id'),
      key: 'id',
      width: 64,
      render: (_, row) => (row.kind === 'channel' ? <span className="mg-nowrap">{row.channel.id}</span> : null),
    },
    {
      title: t('columns.name'),
      key: 'name',
      width: 150,
      render: (_, row) =>
        row.kind === 'channel' ? (
          <Typography.Text ellipsis={{ showTooltip: true }} style={{ maxWidth: 134 }}>
            {row.channel.name}
          </Typography.Text>
        ) : (
          <div className="mg-channel-tag-name">
            <Tag color="light-blue" data-testid={`tag-row-${row.tag}`} className="mg-channel-tag-label">
              {t('cells.tagName', { tag: row.tag })}
            </Tag>
            <Typography.Text type="tertiary" size="small">
              {t('cells.tagCount', { count: row.channels.length })}
            </Typography.Text>
          </div>
        ),
    },
    {
      title: t('columns.group'),
      key: 'group',
      width: 110,
      render: (_, row) => (
        <GroupTags groups={row.kind === 'channel' ? splitList(row.channel.group) : uniqueValues(row.channels.flatMap((c) => splitList(c.group)))} />
      ),
    },
    {
      title: t('columns.type'),
      key: 'type',
      width: 110,
      render: (_, row) => {
        const types = row.kind === 'channel' ? [row.channel.type] : [...new Set(row.channels.map((c) => c.type))];
        return (
          <Space spacing={4} wrap>
            {types.map((type) => (
              <Tag key={type} size="small" color="white">
                {channelTypeName(type)}
              </Tag>
            ))}
          </Space>
        );
      },
    },
    {
      title: t('columns.status'),
      key: 'status',
      width: 120,
      render: (_, row) =>
        row.kind === 'channel' ? (
          <Space spacing={4} wrap>
            <ChannelStatusTag channel={row.channel} />
            <ChannelKeysTag channel={row.channel} onOpen={onManageKeys} />
            <ChannelBreakerTag channel={row.channel} />
            <ChannelOverrunTag channel={row.channel} formatQuota={formatQuota} />
          </Space>
        ) : (
          <TagStatusTag channels={row.channels} />
        ),
    },
    {
      title: t('columns.responseTime'),
      key: 'response_time',
      width: 84,
      render: (_, row) =>
        row.kind === 'channel' ? (
          <ResponseTimeTag milliseconds={row.channel.response_time} testedAt={row.channel.test_time} />
        ) : (
          <ResponseTimeTag milliseconds={averageResponseTime(row.channels)} />
        ),
    },
    {
      title: t('columns.usage'),
      key: 'usage',
      width: 150,
      render: (_, row) =>
        row.kind === 'channel' ? (
          <UsageCell channel={row.channel} formatQuota={formatQuota} onUpdateBalance={actions.updateBalance} />
        ) : (
          <Tag color="white" shape="circle">
            {formatQuota(row.channels.reduce((sum, channel) => sum + channel.used_quota, 0))}
          </Tag>
        ),
    },
    ...(['priority', 'weight'] as const).map(
      (field): ColumnProps<TableRow> => ({
        title: t(`columns.${field}`),
        key: field,
        width: 92,
        render: (_, row) =>
          row.kind === 'channel' ? (
            <RowNumberInput
              field={field}
              value={row.channel[field]}
              onCommit={(value) => actions.patch(row.channel, field, value)}
              testId={`channel-${field}-${row.channel.id}`}
            />
          ) : (
            <RowNumberInput
              field={field}
              value={sharedValue(row.channels, field)}
              placeholder={t('cells.mixedValues')}
              onCommit={(value) => actions.patchTag(row.tag, field, value)}
              testId={`tag-${field}-${row.tag}`}
            />
          ),
      }),
    ),
    {
      title: t('columns.operations'),
      key: 'operations',
      fixed: narrow ? undefined : 'right',
      width: 176,
      render: (_, row) =>
        row.kind === 'channel' ? (
          <ChannelRowActions channel={row.channel} actions={actions} onEdit={onEdit} onManageKeys={onManageKeys} />
        ) : (
          <TagRowActions tag={row.tag} actions={actions} onEditTag={onEditTag} />
        ),
    },
  ];
}

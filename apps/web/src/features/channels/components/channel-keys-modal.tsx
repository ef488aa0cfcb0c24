import { Button, Modal, Popconfirm, Select, Space, Table, Tag, Toast, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import { ChannelStatus } from '@modelgate/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTimestamp } from '../../../lib/date-time';
import { fetchKeyStatus, manageKeys, rethrowUnlessApiError, type Channel, type KeyAction, type KeyStatusPage } from '../api';
import { useTablePagination } from '../../../components/shared/table-pagination';

type KeyEntry = KeyStatusPage['keys'][number];

const PAGE_SIZE = 10;
const STATUS_COLORS: Record<number, 'green' | 'red' | 'yellow'> = {
  [ChannelStatus.Enabled]: 'green',
  [ChannelStatus.ManuallyDisabled]: 'red',
  [ChannelStatus.AutoDisabled]: 'yellow',
};
const STATUS_TEXT = {
  [ChannelStatus.Enabled]: 'status.enabled',
  [ChannelStatus.ManuallyDisabled]: 'status.manuallyDisabled',
  [ChannelStatus.AutoDisabled]: 'status.autoDisabled',
} as const;
const statusText = (status: number) => STATUS_TEXT[status as keyof typeof STATUS_TEXT] ?? 'status.unknown';

interface ChannelKeysModalProps {
  channel: Channel | null;
  onClose: () => void;
  /** The channel list is read again after a change (a channel's status follows its keys). */
  onChanged: () => Promise<void>;
}

/**
 * A multi-key channel's keys (new-api's 多密钥管理): each key masked with its state, why and when
 * it was disabled; enable, disable or delete one, enable or disable all, delete the automatically
 * disabled ones. The key itself is never shown.
 */
export function ChannelKeysModal({ channel, onClose, onChanged }: ChannelKeysModalProps) {
  const { t } = useTranslation('channels');
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<number | undefined>(undefined);
  const [busy, setBusy] = useState<string | null>(null);
  const channelId = channel?.id;
  const keys = useQuery({
    queryKey: ['channel-keys', channelId, page, status],
    queryFn: () => fetchKeyStatus(channelId!, page, PAGE_SIZE, status),
    enabled: channelId !== undefined,
    placeholderData: keepPreviousData,
  });

  const act = async (action: KeyAction, keyIndex?: number) => {
    if (channelId === undefined) return;
    setBusy(`${action}:${keyIndex ?? ''}`);
    try {
      Toast.success(await manageKeys(channelId, action, keyIndex));
      await keys.refetch();
      await onChanged();
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setBusy(null);
    }
  };
  const loading = (action: KeyAction, keyIndex?: number) => busy === `${action}:${keyIndex ?? ''}`;

  const columns: ColumnProps<KeyEntry>[] = [
    { title: t('keys.index'), dataIndex: 'index', width: 70 },
    {
      title: t('keys.key'),
      dataIndex: 'key_preview',
      render: (value: string) => (
        <Typography.Text className="mg-mono" style={{ whiteSpace: 'nowrap' }}>
          {value}
        </Typography.Text>
      ),
    },
    {
      title: t('keys.status'),
      dataIndex: 'status',
      width: 110,
      render: (value: number) => (
        <Tag color={STATUS_COLORS[value] ?? 'grey'} shape="circle">
          {t(statusText(value))}
        </Tag>
      ),
    },
    {
      title: t('keys.usage'),
      key: 'usage',
      width: 130,
      render: (_, entry) => (
        <Space vertical align="start" spacing={2}>
          <Typography.Text size="small">{t('keys.usageCounts', { served: entry.served_count ?? 0, failed: entry.failed_count ?? 0 })}</Typography.Text>
          {entry.last_served_time ? (
            <Typography.Text size="small" type="tertiary">
              {formatTimestamp(entry.last_served_time)}
            </Typography.Text>
          ) : null}
        </Space>
      ),
    },
    {
      title: t('keys.reason'),
      key: 'reason',
      render: (_, entry) =>
        entry.status === ChannelStatus.Enabled ? (
          '-'
        ) : (
          <Space vertical align="start" spacing={2}>
            <Typography.Text size="small" ellipsis={{ showTooltip: true }} style={{ maxWidth: 260 }}>
              {entry.reason || '-'}
            </Typography.Text>
            {entry.disabled_time ? (
              <Typography.Text size="small" type="tertiary">
                {formatTimestamp(entry.disabled_time)}
              </Typography.Text>
            ) : null}
          </Space>
        ),
    },
    {
      title: t('keys.actions'),
      key: 'actions',
      width: 170,
      render: (_, entry) => (
        <Space spacing={4}>
          {entry.status === ChannelStatus.Enabled ? (
            <Button size="small" type="warning" loading={loading('disable_key', entry.index)} onClick={() => void act('disable_key', entry.index)}>
              {t('actions.disable')}
            </Button>
          ) : (
            <Button size="small" type="primary" loading={loading('enable_key', entry.index)} onClick={() => void act('enable_key', entry.index)}>
              {t('actions.enable')}
            </Button>
          )}
          <Popconfirm title={t('keys.confirmDelete')} onConfirm={() => void act('delete_key', entry.index)}>
            <Button size="small" type="danger" loading={loading('delete_key', entry.index)} data-testid={`channel-key-delete-${entry.index}`}>
              {t('actions.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  const data = keys.data;
  const pagination = useTablePagination({ page, pageSize: PAGE_SIZE, total: data?.total ?? 0, onPageChange: setPage });
  return (
    <Modal
      title={channel ? t('keys.title', { name: channel.name }) : ''}
      visible={channel !== null}
      onCancel={onClose}
      footer={null}
      width="min(860px, calc(100vw - 24px))"
      className="mg-channel-keys-modal"
      afterClose={() => {
        setPage(1);
        setStatus(undefined);
      }}
    >
      <div className="mg-channel-keys-toolbar">
        <Space wrap spacing={8}>
          <Tag color="green" data-testid="channel-keys-enabled">
            {t('keys.enabledCount', { count: data?.enabled_count ?? 0 })}
          </Tag>
          <Tag color="red">{t('keys.manualCount', { count: data?.manual_disabled_count ?? 0 })}</Tag>
          <Tag color="yellow" data-testid="channel-keys-auto">
            {t('keys.autoCount', { count: data?.auto_disabled_count ?? 0 })}
          </Tag>
          {data && <Tag>{t(data.multi_key_mode === 'polling' ? 'keys.modePolling' : 'keys.modeRandom')}</Tag>}
        </Space>
        <Space wrap spacing={8}>
          <Select
            value={status ?? 0}
            onChange={(value) => {
              setStatus(Number(value) === 0 ? undefined : Number(value));
              setPage(1);
            }}
            optionList={[
              { value: 0, label: t('keys.filterAll') },
              { value: ChannelStatus.Enabled, label: t('status.enabled') },
              { value: ChannelStatus.ManuallyDisabled, label: t('status.manuallyDisabled') },
              { value: ChannelStatus.AutoDisabled, label: t('status.autoDisabled') },
            ]}
            style={{ width: 130 }}
            aria-label={t('keys.status')}
          />
          <Button loading={loading('enable_all_keys')} onClick={() => void act('enable_all_keys')}>
            {t('keys.enableAll')}
          </Button>
          <Button type="warning" loading={loading('disable_all_keys')} onClick={() => void act('disable_all_keys')}>
            {t('keys.disableAll')}
          </Button>
          <Popconfirm title={t('keys.confirmDeleteAuto')} onConfirm={() => void act('delete_disabled_keys')}>
            <Button type="danger" loading={loading('delete_disabled_keys')} data-testid="channel-keys-delete-auto">
              {t('keys.deleteAuto')}
            </Button>
          </Popconfirm>
        </Space>
      </div>
      <Table<KeyEntry>
        rowKey="index"
        columns={columns}
        dataSource={data?.keys ?? []}
        loading={keys.isFetching}
        size="small"
        scroll={{ x: 760 }}
        pagination={pagination}
        data-testid="channel-keys-table"
      />
    </Modal>
  );
}

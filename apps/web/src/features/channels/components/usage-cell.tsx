import { Space, Spin, Tag, Tooltip } from '@douyinfe/semi-ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTimestamp } from '../../../lib/date-time';
import { rethrowUnlessApiError, type Channel } from '../api';
import { formatBalance } from '../channel-display';

interface UsageCellProps {
  channel: Channel;
  formatQuota: (quota: number) => string;
  onUpdateBalance: (channel: Channel) => Promise<void>;
}

/** Used quota, and the upstream balance which a click refreshes from the provider. */
export function UsageCell({ channel, formatQuota, onUpdateBalance }: UsageCellProps) {
  const { t } = useTranslation('channels');
  const [updating, setUpdating] = useState(false);
  const update = async () => {
    if (updating) return;
    setUpdating(true);
    await onUpdateBalance(channel).catch(rethrowUnlessApiError);
    setUpdating(false);
  };
  const balanceTip = channel.balance_updated_time
    ? `${t('cells.balance', { balance: formatBalance(channel.type, channel.balance) })}\n${t('cells.balanceUpdatedAt', { time: formatTimestamp(channel.balance_updated_time) })}`
    : t('cells.balanceNeverUpdated');
  return (
    <Space spacing={4} wrap={false}>
      <Tooltip content={t('cells.usedQuota', { quota: formatQuota(channel.used_quota) })}>
        <Tag color="white" shape="circle">
          {formatQuota(channel.used_quota)}
        </Tag>
      </Tooltip>
      <Tooltip content={<span className="mg-channel-tooltip">{balanceTip}</span>}>
        <Tag color="white" shape="circle" className="mg-clickable" onClick={() => void update()} data-testid={`channel-balance-${channel.id}`}>
          {updating ? <Spin size="small" /> : formatBalance(channel.type, channel.balance)}
        </Tag>
      </Tooltip>
    </Space>
  );
}

import { Tag, Tooltip } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { formatTimestamp } from '../../../lib/date-time';
import type { Channel } from '../api';
import { overrunInfo } from '../channel-display';

interface ChannelOverrunTagProps {
  channel: Channel;
  formatQuota: (quota: number) => string;
}

/**
 * Beside the status: the channel's upstream returned more than its calls were held for, so the
 * excess went uncharged, or streamed past the output limit it was sent and was cut there; the
 * tooltip gives the totals and when it last happened.
 */
export function ChannelOverrunTag({ channel, formatQuota }: ChannelOverrunTagProps) {
  const { t } = useTranslation('channels');
  const info = overrunInfo(channel);
  if (!info) return null;
  const time = formatTimestamp(info.time);
  const parts = [];
  if (info.quota > 0) parts.push(t('overrun.detail', { quota: formatQuota(info.quota), time }));
  if (info.cuts > 0) parts.push(t('overrun.cuts', { count: info.cuts, time }));
  const detail = parts.join('\n');
  return (
    <Tooltip content={<span className="mg-channel-tooltip">{detail}</span>}>
      <Tag color="amber" shape="circle" data-testid={`channel-overrun-${channel.id}`}>
        {t('overrun.label')}
      </Tag>
    </Tooltip>
  );
}

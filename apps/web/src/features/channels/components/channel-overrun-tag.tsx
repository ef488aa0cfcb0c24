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
 * excess went uncharged; the tooltip gives the total and when it last happened.
 */
export function ChannelOverrunTag({ channel, formatQuota }: ChannelOverrunTagProps) {
  const { t } = useTranslation('channels');
  const info = overrunInfo(channel);
  if (!info) return null;
  const detail = t('overrun.detail', { quota: formatQuota(info.quota), time: formatTimestamp(info.time) });
  return (
    <Tooltip content={<span className="mg-channel-tooltip">{detail}</span>}>
      <Tag color="amber" shape="circle" data-testid={`channel-overrun-${channel.id}`}>
        {t('overrun.label')}
      </Tag>
    </Tooltip>
  );
}

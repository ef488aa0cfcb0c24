import { Tag, Tooltip } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { formatTimestamp } from '../../../lib/date-time';
import type { Channel } from '../api';
import { breakerDisplay } from '../channel-display';

const COLORS = { open: 'orange', probing: 'amber', someKeys: 'yellow' } as const;

/**
 * The circuit breaker beside the status: shown only while it keeps traffic away from the channel
 * (or from some of its keys), with the failure that opened it in a tooltip.
 */
export function ChannelBreakerTag({ channel }: { channel: Channel }) {
  const { t } = useTranslation('channels');
  const display = breakerDisplay(channel);
  if (!display) return null;
  const label = display.kind === 'someKeys' ? t('breaker.someKeys', { count: display.openKeys }) : t(`breaker.${display.kind}`);
  const detail =
    display.kind === 'someKeys'
      ? t('breaker.someKeysDetail', { count: display.openKeys })
      : t(`breaker.${display.kind}Detail`, { reason: display.reason, time: formatTimestamp(display.until) });
  return (
    <Tooltip content={<span className="mg-channel-tooltip">{detail}</span>}>
      <Tag color={COLORS[display.kind]} shape="circle" data-testid={`channel-breaker-${channel.id}`}>
        {label}
      </Tag>
    </Tooltip>
  );
}

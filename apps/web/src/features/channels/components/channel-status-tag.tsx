import { Tag, Tooltip } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { formatTimestamp } from '../../../lib/date-time';
import type { Channel } from '../api';
import { autoDisableInfo, channelStatusKey } from '../channel-display';

const COLORS = { enabled: 'green', manuallyDisabled: 'red', autoDisabled: 'yellow', unknown: 'grey' } as const;

/** Spec 02 §4: status tag; an auto-disabled channel explains the reason and time in a tooltip. */
export function ChannelStatusTag({ channel }: { channel: Channel }) {
  const { t } = useTranslation('channels');
  const key = channelStatusKey(channel.status);
  const tag = (
    <Tag color={COLORS[key]} shape="circle" data-testid={`channel-status-${channel.id}`}>
      {t(`status.${key}`)}
    </Tag>
  );
  const info = key === 'autoDisabled' ? autoDisableInfo(channel) : null;
  if (!info) return tag;
  return (
    <Tooltip content={<span className="mg-channel-tooltip">{t('status.autoDisabledDetail', { reason: info.reason, time: formatTimestamp(info.time) })}</span>}>
      {tag}
    </Tooltip>
  );
}

/** A multi-key channel: how many of its keys serve (all, some or none), opening its key list. */
export function ChannelKeysTag({ channel, onOpen }: { channel: Channel; onOpen: (channel: Channel) => void }) {
  const { t } = useTranslation('channels');
  const info = channel.channel_info;
  if (!info.is_multi_key) return null;
  const disabled = Object.keys(info.multi_key_status_list).length;
  const enabled = info.multi_key_size - disabled;
  const color = disabled === 0 ? 'blue' : enabled === 0 ? 'red' : 'yellow';
  return (
    <Tag color={color} shape="circle" onClick={() => onOpen(channel)} style={{ cursor: 'pointer' }} data-testid={`channel-keys-tag-${channel.id}`}>
      {t('keys.tag', { enabled, total: info.multi_key_size })}
    </Tag>
  );
}

/** A tag row: how many of its channels are enabled. */
export function TagStatusTag({ channels }: { channels: Channel[] }) {
  const { t } = useTranslation('channels');
  const enabled = channels.filter((channel) => channelStatusKey(channel.status) === 'enabled').length;
  const color = enabled === channels.length ? 'green' : enabled === 0 ? 'red' : 'yellow';
  return (
    <Tag color={color} shape="circle">
      {enabled === channels.length
        ? t('status.enabled')
        : enabled === 0
          ? t('status.manuallyDisabled')
          : t('status.tagSummary', { enabled, total: channels.length })}
    </Tag>
  );
}

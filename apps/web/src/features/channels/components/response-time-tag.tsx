import { Tag, Tooltip } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { formatTimestamp } from '../../../lib/date-time';
import { responseTimeColor } from '../channel-display';

interface ResponseTimeTagProps {
  /** Milliseconds; 0 means never tested. */
  milliseconds: number;
  /** Unix seconds of the last test, for the tooltip. */
  testedAt?: number;
}

/** Spec 02 §4 badge colours: untested grey, ≤1 s green, ≤3 s lime, ≤5 s yellow, else red. */
export function ResponseTimeTag({ milliseconds, testedAt }: ResponseTimeTagProps) {
  const { t } = useTranslation('channels');
  const color = responseTimeColor(milliseconds);
  const tag = (
    <Tag color={color} shape="circle" data-color={color}>
      {color === 'grey' ? t('cells.untested') : t('cells.seconds', { time: (milliseconds / 1000).toFixed(2) })}
    </Tag>
  );
  if (!testedAt) return tag;
  return <Tooltip content={t('cells.lastTested', { time: formatTimestamp(testedAt) })}>{tag}</Tooltip>;
}

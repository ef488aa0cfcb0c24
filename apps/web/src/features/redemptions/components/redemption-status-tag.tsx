import { Tag } from '@douyinfe/semi-ui';
import { RedemptionStatus } from '@modelgate/contract';
import { useTranslation } from 'react-i18next';

type TagColor = 'green' | 'red' | 'grey' | 'white';

const STATUS_LOOK: Record<number, { color: TagColor; key: 'unused' | 'disabled' | 'used' }> = {
  [RedemptionStatus.Unused]: { color: 'green', key: 'unused' },
  [RedemptionStatus.Disabled]: { color: 'red', key: 'disabled' },
  [RedemptionStatus.Used]: { color: 'grey', key: 'used' },
};

/** Spec 02 §4: 1 unused, 2 disabled, 3 used. */
export function RedemptionStatusTag({ status }: { status: number }) {
  const { t } = useTranslation('redemptions');
  const look = STATUS_LOOK[status];
  if (!look) return <Tag color="white">{t('status.unknown')}</Tag>;
  return (
    <Tag color={look.color} data-testid="redemption-status">
      {t(`status.${look.key}`)}
    </Tag>
  );
}

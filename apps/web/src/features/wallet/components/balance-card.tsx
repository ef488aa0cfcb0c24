import { Card, Skeleton, Typography } from '@douyinfe/semi-ui';
import { IconCreditCard } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../../lib/quota';
import { useSelf } from '../../auth/queries';

/** The balance and the two counters GET /api/user/self carries with it. */
export function BalanceCard() {
  const { t } = useTranslation('wallet');
  const formatQuota = useQuotaFormatter();
  const self = useSelf();
  const user = self.data;

  return (
    <Card bordered className="mg-wallet-balance">
      <div className="mg-wallet-balance-main">
        <span className="mg-wallet-balance-icon" aria-hidden>
          <IconCreditCard size="extra-large" />
        </span>
        <div>
          <Typography.Text type="tertiary">{t('balance.title')}</Typography.Text>
          <Skeleton loading={self.isPending} active placeholder={<Skeleton.Title style={{ width: 140, height: 36 }} />}>
            <div className="mg-wallet-balance-value" data-testid="wallet-balance">
              {formatQuota(user?.quota ?? 0)}
            </div>
          </Skeleton>
        </div>
      </div>
      <div className="mg-wallet-balance-stats">
        <div>
          <Typography.Text type="tertiary">{t('balance.used')}</Typography.Text>
          <div className="mg-wallet-stat-value">{self.isPending ? '—' : formatQuota(user?.used_quota ?? 0)}</div>
        </div>
        <div>
          <Typography.Text type="tertiary">{t('balance.requests')}</Typography.Text>
          <div className="mg-wallet-stat-value">{self.isPending ? '—' : (user?.request_count ?? 0).toLocaleString()}</div>
        </div>
      </div>
    </Card>
  );
}

import { Card, Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../../lib/quota';
import { formatRate, type UsageSummary } from '../detail-rules';

const grouped = (value: number) => value.toLocaleString('en-US');

/** The five figures of the range: quota as money (like the rest of the console), tokens, calls, RPM, TPM. */
export function SummaryCards({ summary }: { summary: UsageSummary }) {
  const { t } = useTranslation('detail');
  const formatQuota = useQuotaFormatter();
  const cards = [
    { key: 'quota', value: formatQuota(summary.quota) },
    { key: 'tokens', value: grouped(summary.tokens) },
    { key: 'count', value: grouped(summary.count) },
    { key: 'rpm', value: formatRate(summary.rpm) },
    { key: 'tpm', value: formatRate(summary.tpm) },
  ] as const;
  return (
    <div className="mg-detail-cards">
      {cards.map((card) => (
        <Card key={card.key} className="mg-detail-card" bodyStyle={{ padding: '14px 16px' }}>
          <Typography.Text type="tertiary" size="small">
            {t(`cards.${card.key}`)}
          </Typography.Text>
          <div className="mg-detail-card-value" data-testid={`detail-card-${card.key}`}>
            {card.value}
          </div>
        </Card>
      ))}
    </div>
  );
}

import { Card, Typography } from '@douyinfe/semi-ui';
import type { ReactNode } from 'react';

interface ChartCardProps {
  title: string;
  subtitle?: string;
  testId: string;
  children: ReactNode;
}

/** A titled card around one chart; the chart fills its width at a fixed height. */
export function ChartCard({ title, subtitle, testId, children }: ChartCardProps) {
  return (
    <Card className="mg-detail-chart" data-testid={testId} bodyStyle={{ padding: '14px 16px' }}>
      <div className="mg-detail-chart-head">
        <Typography.Title heading={6}>{title}</Typography.Title>
        {subtitle && (
          <Typography.Text type="tertiary" data-testid={`${testId}-total`}>
            {subtitle}
          </Typography.Text>
        )}
      </div>
      <div className="mg-detail-chart-body">{children}</div>
    </Card>
  );
}

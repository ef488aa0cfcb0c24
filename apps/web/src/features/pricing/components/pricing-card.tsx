import { Button, Card, Space, Tag, Tooltip, Typography } from '@douyinfe/semi-ui';
import { IconCopy } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import type { PricedModel, PricingVendor } from '../api';
import { vendorLabel } from '../pricing-labels';
import { formatDollars, pricesOf } from '../pricing-rules';
import { ModelTags } from './model-tags';
import { VendorIcon } from './vendor-icon';

interface PricingCardProps {
  model: PricedModel;
  vendor: PricingVendor | undefined;
  groupRatio: number;
  /** The signed-in user's group; undefined when signed out (then nothing is marked). */
  userGroup: string | undefined;
  onCopy: (model: PricedModel) => void;
}

/** One model as a card (new-api's card view, and the phone layout): maker, name, prices, groups, tags. */
export function PricingCard({ model, vendor, groupRatio, userGroup, onCopy }: PricingCardProps) {
  const { t } = useTranslation('pricing');
  const prices = pricesOf(model, groupRatio);
  const lines: [string, number | null, string][] = [
    [t('card.input'), prices.input, 'pricing-input'],
    [t('card.output'), prices.output, 'pricing-output'],
    [t('card.cached'), prices.cached, 'pricing-cached'],
    [t('card.perCall'), prices.perCall, 'pricing-per-call'],
  ];
  return (
    <Card className="mg-pricing-card" bodyStyle={{ padding: 16 }} data-testid={`pricing-card-${model.model_name}`}>
      <div className="mg-pricing-card-head">
        <VendorIcon vendor={vendor} />
        <Typography.Text strong className="mg-pricing-card-name" data-testid="pricing-model-name">
          {model.model_name}
        </Typography.Text>
        <Tooltip content={t('actions.copy')}>
          <Button size="small" theme="borderless" icon={<IconCopy />} aria-label={t('actions.copy')} onClick={() => onCopy(model)} data-testid="pricing-copy" />
        </Tooltip>
      </div>
      <Typography.Text type="tertiary" size="small" className="mg-pricing-card-vendor" data-testid="pricing-vendor-name">
        {vendorLabel(t, vendor)}
      </Typography.Text>
      <Space spacing={4} wrap>
        <Tag color={model.quota_type === 1 ? 'teal' : 'violet'} size="small">
          {model.quota_type === 1 ? t('type.fixed') : t('type.ratio')}
        </Tag>
        <ModelTags model={model} userGroup={userGroup} t={t} />
      </Space>
      <dl className="mg-pricing-card-prices">
        {lines
          .filter(([, value]) => value !== null)
          .map(([label, value, testId]) => (
            <div key={testId} style={{ display: 'contents' }}>
              <dt>{label}</dt>
              <dd data-testid={testId}>{formatDollars(value!)}</dd>
            </div>
          ))}
      </dl>
      <Space spacing={4} wrap>
        <Typography.Text type="tertiary" size="small">
          {t('columns.groups')}
        </Typography.Text>
        {model.enable_groups.map((group) => (
          <Tag key={group} size="small" color={group === userGroup ? 'blue' : 'white'}>
            {group}
          </Tag>
        ))}
      </Space>
    </Card>
  );
}

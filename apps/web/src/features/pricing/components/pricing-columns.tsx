import { Button, Space, Tag, Tooltip, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import { IconCopy } from '@douyinfe/semi-icons';
import type { TFunction } from 'i18next';
import type { PricedModel, PricingVendor } from '../api';
import { vendorLabel } from '../pricing-labels';
import { formatDollars, pricesOf, tagsOf } from '../pricing-rules';
import { ModelTags, unusableFor } from './model-tags';
import { VendorIcon } from './vendor-icon';

interface ColumnOptions {
  t: TFunction<'pricing'>;
  groupRatio: number;
  /** The signed-in user's group; undefined when signed out (then nothing is marked). */
  userGroup: string | undefined;
  onCopy: (model: PricedModel) => void;
  vendorOf: (model: PricedModel) => PricingVendor | undefined;
}

const priceCell = (value: number | null, testId: string) =>
  value === null ? (
    <Typography.Text type="tertiary" data-testid={testId}>
      -
    </Typography.Text>
  ) : (
    <Typography.Text data-testid={testId}>{formatDollars(value)}</Typography.Text>
  );

export function pricingColumns({ t, groupRatio, userGroup, onCopy, vendorOf }: ColumnOptions): ColumnProps<PricedModel>[] {
  return [
    {
      title: t('columns.model'),
      dataIndex: 'model_name',
      width: 320,
      render: (_value, model) => {
        const vendor = vendorOf(model);
        return (
          <div className="mg-pricing-model-cell">
            <div className="mg-pricing-model-line">
              <Tooltip content={vendorLabel(t, vendor)}>
                <span className="mg-pricing-vendor-cell">
                  <VendorIcon vendor={vendor} label={vendorLabel(t, vendor)} />
                </span>
              </Tooltip>
              <Typography.Text strong data-testid="pricing-model-name">
                {model.model_name}
              </Typography.Text>
              <Tooltip content={t('actions.copy')}>
                <Button
                  size="small"
                  theme="borderless"
                  icon={<IconCopy />}
                  aria-label={t('actions.copy')}
                  onClick={() => onCopy(model)}
                  data-testid="pricing-copy"
                />
              </Tooltip>
            </div>
            {(tagsOf(model).length > 0 || unusableFor(model, userGroup)) && (
              <Space spacing={4} wrap>
                <ModelTags model={model} userGroup={userGroup} t={t} />
              </Space>
            )}
          </div>
        );
      },
    },
    {
      title: t('columns.type'),
      dataIndex: 'quota_type',
      width: 120,
      render: (_value, model) =>
        model.quota_type === 1 ? (
          <Tag color="teal" size="small">
            {t('type.fixed')}
          </Tag>
        ) : (
          <Tag color="violet" size="small">
            {t('type.ratio')}
          </Tag>
        ),
    },
    {
      title: t('columns.groups'),
      dataIndex: 'enable_groups',
      render: (_value, model) => (
        <Space spacing={4} wrap>
          {model.enable_groups.map((group) => (
            <Tag key={group} size="small" color={group === userGroup ? 'blue' : 'white'}>
              {group}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('columns.input'),
      key: 'input',
      width: 150,
      render: (_value, model) => priceCell(pricesOf(model, groupRatio).input, 'pricing-input'),
    },
    {
      title: t('columns.output'),
      key: 'output',
      width: 150,
      render: (_value, model) => priceCell(pricesOf(model, groupRatio).output, 'pricing-output'),
    },
    {
      title: t('columns.cached'),
      key: 'cached',
      width: 150,
      render: (_value, model) => priceCell(pricesOf(model, groupRatio).cached, 'pricing-cached'),
    },
    {
      title: t('columns.perCall'),
      key: 'perCall',
      width: 130,
      render: (_value, model) => priceCell(pricesOf(model, groupRatio).perCall, 'pricing-per-call'),
    },
  ];
}

import { Button, Typography } from '@douyinfe/semi-ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { PricingVendor } from '../api';
import { tagLabel, vendorLabel } from '../pricing-labels';
import type { FilterChoice } from '../pricing-rules';
import { VendorIcon } from './vendor-icon';

interface ChipRowProps {
  label: string;
  allLabel: string;
  total: number;
  choices: FilterChoice[];
  value: string;
  onChange: (value: string) => void;
  render: (choice: FilterChoice) => { text: string; vendor?: PricingVendor | null };
  testId: string;
}

function ChipRow({ label, allLabel, total, choices, value, onChange, render, testId }: ChipRowProps) {
  const chip = (key: string, text: string, count: number, icon?: ReactNode) => (
    <Button
      key={key}
      size="small"
      theme={value === key ? 'solid' : 'light'}
      type={value === key ? 'primary' : 'tertiary'}
      className="mg-pricing-chip"
      icon={icon}
      aria-pressed={value === key}
      onClick={() => onChange(key)}
      data-testid={`${testId}-${key || 'all'}`}
    >
      {text} <span className="mg-pricing-chip-count">{count}</span>
    </Button>
  );
  return (
    <div className="mg-pricing-filter" role="group" aria-label={label} data-testid={testId}>
      <Typography.Text className="mg-pricing-filter-label">{label}</Typography.Text>
      {chip('', allLabel, total)}
      {choices.map((choice) => {
        const { text, vendor } = render(choice);
        return chip(choice.value, text, choice.count, vendor === undefined ? undefined : <VendorIcon vendor={vendor ?? undefined} size={16} />);
      })}
    </div>
  );
}

interface PricingFiltersProps {
  vendors: FilterChoice[];
  tags: FilterChoice[];
  vendorTotal: number;
  tagTotal: number;
  vendor: string;
  tag: string;
  onVendor: (value: string) => void;
  onTag: (value: string) => void;
}

/** new-api's pricing filters: a row of vendors with their marks and a row of tags, each with its count. */
export function PricingFilters(props: PricingFiltersProps) {
  const { t } = useTranslation('pricing');
  return (
    <>
      {props.vendors.length > 0 && (
        <ChipRow
          label={t('vendor.label')}
          allLabel={t('vendor.all')}
          total={props.vendorTotal}
          choices={props.vendors}
          value={props.vendor}
          onChange={props.onVendor}
          render={(choice) => ({ text: vendorLabel(t, choice.vendor), vendor: choice.vendor ?? null })}
          testId="pricing-vendor"
        />
      )}
      {props.tags.length > 0 && (
        <ChipRow
          label={t('tag.label')}
          allLabel={t('tag.all')}
          total={props.tagTotal}
          choices={props.tags}
          value={props.tag}
          onChange={props.onTag}
          render={(choice) => ({ text: tagLabel(t, choice.value) })}
          testId="pricing-tag"
        />
      )}
    </>
  );
}

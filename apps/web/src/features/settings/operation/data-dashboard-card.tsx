import { IconPieChart2Stroked } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionNumberField, OptionSelectField, OptionSwitchField, useNumberCheck } from './option-fields';
import type { NumberOptionKey } from './operation-rules';

const KEYS = ['DataExportEnabled', 'DataExportInterval', 'DataExportDefaultTime'] as const;
const NUMBERS: readonly NumberOptionKey[] = ['DataExportInterval'];
/** Spec 01 §9: the dashboard's granularities. */
const GRANULARITIES = ['hour', 'day', 'week'] as const;

/** 数据看板设置: whether usage is exported for the dashboard, how often, and its default granularity. */
export function DataDashboardCard() {
  const { t } = useTranslation('settings-operation');
  const validate = useNumberCheck(NUMBERS);
  const card = useOptionCard(KEYS, { validate });
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.dashboard.title')}
      icon={<IconPieChart2Stroked />}
      description={t('cards.dashboard.description')}
      testId="op-card-dashboard"
    >
      <div className="mg-option-grid mg-op-switches">
        <OptionSwitchField card={card} optionKey="DataExportEnabled" />
      </div>
      <div className="mg-option-grid">
        <OptionNumberField card={card} optionKey="DataExportInterval" suffix={t('units.minutes')} />
        <OptionSelectField
          card={card}
          optionKey="DataExportDefaultTime"
          choices={GRANULARITIES.map((value) => ({ value, label: t(`granularity.${value}`) }))}
        />
      </div>
    </OptionCardFrame>
  );
}

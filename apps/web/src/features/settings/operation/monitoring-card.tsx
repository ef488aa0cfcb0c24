import { IconPulse } from '@douyinfe/semi-icons';
import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionNumberField, OptionSwitchField, OptionTextAreaField, useNumberCheck } from './option-fields';
import type { NumberOptionKey } from './operation-rules';

const KEYS = [
  'ChannelDisableThreshold',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'AutomaticDisableKeywords',
  'ChannelBreakerFailureThreshold',
  'ChannelBreakerWindowSeconds',
  'ChannelBreakerCooldownSeconds',
] as const;
const NUMBERS: readonly NumberOptionKey[] = [
  'ChannelDisableThreshold',
  'ChannelBreakerFailureThreshold',
  'ChannelBreakerWindowSeconds',
  'ChannelBreakerCooldownSeconds',
];

/** 监控设置: channel tests and automatic disabling/enabling, and the relay's circuit breakers. */
export function MonitoringCard() {
  const { t } = useTranslation('settings-operation');
  const validate = useNumberCheck(NUMBERS);
  const card = useOptionCard(KEYS, { validate });
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.monitoring.title')}
      icon={<IconPulse />}
      description={t('cards.monitoring.description')}
      testId="op-card-monitoring"
    >
      <div className="mg-option-grid">
        <OptionNumberField card={card} optionKey="ChannelDisableThreshold" suffix={t('units.seconds')} />
      </div>
      <div className="mg-option-grid mg-op-switches">
        <OptionSwitchField card={card} optionKey="AutomaticDisableChannelEnabled" />
        <OptionSwitchField card={card} optionKey="AutomaticEnableChannelEnabled" />
      </div>
      <div className="mg-option-grid">
        <OptionTextAreaField card={card} optionKey="AutomaticDisableKeywords" minRows={4} />
      </div>
      <div className="mg-op-section">
        <Typography.Title heading={6} className="mg-op-section-title">
          {t('monitoring.breakerTitle')}
        </Typography.Title>
        <Typography.Text type="tertiary" size="small" className="mg-op-section-description">
          {t('monitoring.breakerDescription')}
        </Typography.Text>
      </div>
      <div className="mg-option-grid">
        <OptionNumberField card={card} optionKey="ChannelBreakerFailureThreshold" suffix={t('units.times')} />
        <OptionNumberField card={card} optionKey="ChannelBreakerWindowSeconds" suffix={t('units.seconds')} />
        <OptionNumberField card={card} optionKey="ChannelBreakerCooldownSeconds" suffix={t('units.seconds')} />
      </div>
    </OptionCardFrame>
  );
}

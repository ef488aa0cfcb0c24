import { IconClock } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionNumberField, OptionSwitchField, useNumberCheck } from './option-fields';
import type { NumberOptionKey } from './operation-rules';

const NUMBERS: readonly NumberOptionKey[] = ['ModelRequestRateLimitDurationMinutes', 'ModelRequestRateLimitCount', 'ModelRequestRateLimitSuccessCount'];
const KEYS = ['ModelRequestRateLimitEnabled', ...NUMBERS] as const;

/**
 * 速率限制设置: new-api's per-user model request limits, enforced by the relay for API-key calls
 * (all requests, failed ones included, and successful ones, per period; shared by every node
 * through Redis when it is configured).
 */
export function RateLimitCard() {
  const { t } = useTranslation('settings-operation');
  const validate = useNumberCheck(NUMBERS);
  const card = useOptionCard(KEYS, { validate });
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.rateLimit.title')}
      icon={<IconClock />}
      description={t('cards.rateLimit.description')}
      testId="op-card-rate-limit"
    >
      <div className="mg-option-grid mg-op-switches">
        <OptionSwitchField card={card} optionKey="ModelRequestRateLimitEnabled" />
      </div>
      <div className="mg-option-grid">
        <OptionNumberField card={card} optionKey="ModelRequestRateLimitDurationMinutes" suffix={t('units.minutes')} />
        <OptionNumberField card={card} optionKey="ModelRequestRateLimitCount" suffix={t('units.times')} />
        <OptionNumberField card={card} optionKey="ModelRequestRateLimitSuccessCount" suffix={t('units.times')} />
      </div>
    </OptionCardFrame>
  );
}

import { IconClock } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import type { OptionValues } from '../options/options-api';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionNumberField, OptionSwitchField, OptionTextAreaField, useFieldLabel, useNumberCheck } from './option-fields';
import type { NumberOptionKey } from './operation-rules';
import { requestLimitGroupIssue } from './rate-limit-rules';

const NUMBERS: readonly NumberOptionKey[] = ['ModelRequestRateLimitDurationMinutes', 'ModelRequestRateLimitCount', 'ModelRequestRateLimitSuccessCount'];
const KEYS = ['ModelRequestRateLimitEnabled', ...NUMBERS, 'ModelRequestRateLimitGroup'] as const;

/**
 * 速率限制设置: new-api's per-user model request limits, enforced by the relay for API-key calls
 * (all requests, failed ones included, and successful ones, per period; shared by every node
 * through Redis when it is configured), and new-api's per-group pair (ModelRequestRateLimitGroup).
 */
export function RateLimitCard() {
  const { t } = useTranslation('settings-operation');
  const label = useFieldLabel();
  const numberCheck = useNumberCheck(NUMBERS);
  const validate = (values: OptionValues) => {
    const problem = numberCheck(values);
    if (problem) return problem;
    const issue = requestLimitGroupIssue(values.ModelRequestRateLimitGroup ?? '');
    return issue ? t(`json.${issue.problem}`, { name: label('ModelRequestRateLimitGroup'), entry: issue.entry }) : null;
  };
  const card = useOptionCard(KEYS, { validate, jsonNames: { ModelRequestRateLimitGroup: label('ModelRequestRateLimitGroup') } });
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
      <div className="mg-option-grid mg-op-json-grid">
        <OptionTextAreaField card={card} optionKey="ModelRequestRateLimitGroup" json={{ name: label('ModelRequestRateLimitGroup') }} minRows={4} />
      </div>
    </OptionCardFrame>
  );
}

import { IconShrink } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { useModelSettingsCheck, type ShapeChecks } from './model-settings-check';
import { outputBoundMapIssue } from './model-settings-rules';
import { OptionNumberField, OptionTextAreaField } from './option-fields';
import type { NumberOptionKey } from './operation-rules';

const KEYS = ['MinCappedOutputTokens', 'ModelMaxOutputTokens'] as const;
const NUMBERS: readonly NumberOptionKey[] = ['MinCappedOutputTokens'];
const SHAPES: ShapeChecks = { ModelMaxOutputTokens: outputBoundMapIssue };

/**
 * 输出上限: how far the relay lowers a call's output limit to what its payer's balance pays for
 * before refusing it, and each model's output bound, which is what a call without max_tokens holds.
 */
export function OutputLimitsCard() {
  const { t } = useTranslation('settings-operation');
  const { validate, jsonNames, label } = useModelSettingsCheck(NUMBERS, SHAPES);
  const card = useOptionCard(KEYS, { validate, jsonNames });
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.outputLimits.title')}
      icon={<IconShrink />}
      description={t('cards.outputLimits.description')}
      testId="op-card-output-limits"
    >
      <div className="mg-option-grid">
        <OptionNumberField card={card} optionKey="MinCappedOutputTokens" suffix={t('units.tokens')} />
        <OptionTextAreaField card={card} optionKey="ModelMaxOutputTokens" json={{ name: label('ModelMaxOutputTokens') }} minRows={8} />
      </div>
    </OptionCardFrame>
  );
}

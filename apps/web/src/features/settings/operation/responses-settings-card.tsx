import { IconSync } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { useModelSettingsCheck, type ShapeChecks } from './model-settings-check';
import { responsesPolicyIssue } from './model-settings-rules';
import { OptionNumberField, OptionTextAreaField } from './option-fields';
import type { NumberOptionKey } from './operation-rules';

const KEYS = ['ResponsesRetentionHours', 'global.chat_completions_to_responses_policy'] as const;
const NUMBERS: readonly NumberOptionKey[] = ['ResponsesRetentionHours'];
const SHAPES: ShapeChecks = { 'global.chat_completions_to_responses_policy': responsesPolicyIssue };

/**
 * Responses API: how long turns answered by conversion are kept for previous_response_id, and
 * new-api's ChatCompletions→Responses policy (chat calls of matching models sent upstream as
 * Responses calls).
 */
export function ResponsesSettingsCard() {
  const { t } = useTranslation('settings-operation');
  const { validate, jsonNames, label } = useModelSettingsCheck(NUMBERS, SHAPES);
  const card = useOptionCard(KEYS, { validate, jsonNames });
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.responses.title')}
      icon={<IconSync />}
      description={t('cards.responses.description')}
      testId="op-card-responses"
    >
      <div className="mg-option-grid">
        <OptionNumberField card={card} optionKey="ResponsesRetentionHours" />
      </div>
      <div className="mg-option-grid mg-op-json-grid">
        <OptionTextAreaField
          card={card}
          optionKey="global.chat_completions_to_responses_policy"
          json={{ name: label('global.chat_completions_to_responses_policy') }}
          minRows={8}
        />
      </div>
    </OptionCardFrame>
  );
}

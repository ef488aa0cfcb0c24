import { IconBolt } from '@douyinfe/semi-icons';
import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { useModelSettingsCheck, type ShapeChecks } from './model-settings-check';
import { headerMapIssue, intMapIssue, thinkingBudget } from './model-settings-rules';
import { OptionNumberField, OptionSwitchField, OptionTextAreaField } from './option-fields';
import type { NumberOptionKey } from './operation-rules';

const KEYS = [
  'claude.model_headers_settings',
  'claude.default_max_tokens',
  'claude.thinking_adapter_enabled',
  'claude.thinking_adapter_budget_tokens_percentage',
] as const;
const NUMBERS: readonly NumberOptionKey[] = ['claude.thinking_adapter_budget_tokens_percentage'];
const SHAPES: ShapeChecks = { 'claude.model_headers_settings': headerMapIssue, 'claude.default_max_tokens': intMapIssue };

/**
 * Claude设置 (new-api's SettingClaudeModel): request headers added per model, the max_tokens a
 * request without one is sent with, and the -thinking suffix adapter with its budget share.
 */
export function ClaudeSettingsCard() {
  const { t } = useTranslation('settings-operation');
  const { validate, jsonNames, label } = useModelSettingsCheck(NUMBERS, SHAPES);
  const card = useOptionCard(KEYS, { validate, jsonNames });
  const budget = thinkingBudget(card.value('claude.default_max_tokens'), card.value('claude.thinking_adapter_budget_tokens_percentage'));
  return (
    <OptionCardFrame card={card} title={t('cards.claude.title')} icon={<IconBolt />} description={t('cards.claude.description')} testId="op-card-claude">
      <div className="mg-option-grid mg-op-json-grid">
        <OptionTextAreaField card={card} optionKey="claude.model_headers_settings" json={{ name: label('claude.model_headers_settings') }} minRows={6} />
        <OptionTextAreaField card={card} optionKey="claude.default_max_tokens" json={{ name: label('claude.default_max_tokens') }} minRows={6} />
      </div>
      <div className="mg-op-section">
        <Typography.Title heading={6} className="mg-op-section-title">
          {t('modelSettings.thinkingTitle')}
        </Typography.Title>
        <Typography.Text type="tertiary" size="small" className="mg-op-section-description">
          {t('modelSettings.claudeFormula')}
        </Typography.Text>
      </div>
      <div className="mg-option-grid">
        <OptionSwitchField card={card} optionKey="claude.thinking_adapter_enabled" />
        <OptionNumberField
          card={card}
          optionKey="claude.thinking_adapter_budget_tokens_percentage"
          extra={() => (budget ? t('modelSettings.budgetExample', budget) : null)}
        />
      </div>
    </OptionCardFrame>
  );
}

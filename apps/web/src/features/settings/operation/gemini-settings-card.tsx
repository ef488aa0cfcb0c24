import { IconGlobeStroke } from '@douyinfe/semi-icons';
import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { useModelSettingsCheck, type ShapeChecks } from './model-settings-check';
import { safetyMapIssue, stringListIssue, versionMapIssue } from './model-settings-rules';
import { OptionNumberField, OptionSwitchField, OptionTextAreaField } from './option-fields';
import type { NumberOptionKey } from './operation-rules';

const KEYS = [
  'gemini.safety_settings',
  'gemini.version_settings',
  'gemini.supported_imagine_models',
  'gemini.thinking_adapter_enabled',
  'gemini.thinking_adapter_budget_tokens_percentage',
] as const;
const NUMBERS: readonly NumberOptionKey[] = ['gemini.thinking_adapter_budget_tokens_percentage'];
const SHAPES: ShapeChecks = {
  'gemini.safety_settings': safetyMapIssue,
  'gemini.version_settings': versionMapIssue,
  'gemini.supported_imagine_models': stringListIssue,
};

/**
 * Gemini设置 (new-api's SettingGeminiModel): safety thresholds per harm category, the API version
 * per model, the models asked for images, and the thinking suffix adapter.
 */
export function GeminiSettingsCard() {
  const { t } = useTranslation('settings-operation');
  const { validate, jsonNames, label } = useModelSettingsCheck(NUMBERS, SHAPES);
  const card = useOptionCard(KEYS, { validate, jsonNames });
  return (
    <OptionCardFrame card={card} title={t('cards.gemini.title')} icon={<IconGlobeStroke />} description={t('cards.gemini.description')} testId="op-card-gemini">
      <div className="mg-option-grid mg-op-json-grid">
        <OptionTextAreaField card={card} optionKey="gemini.safety_settings" json={{ name: label('gemini.safety_settings') }} minRows={6} />
        <OptionTextAreaField card={card} optionKey="gemini.version_settings" json={{ name: label('gemini.version_settings') }} minRows={6} />
        <OptionTextAreaField card={card} optionKey="gemini.supported_imagine_models" json={{ name: label('gemini.supported_imagine_models') }} minRows={6} />
      </div>
      <div className="mg-op-section">
        <Typography.Title heading={6} className="mg-op-section-title">
          {t('modelSettings.geminiThinkingTitle')}
        </Typography.Title>
        <Typography.Text type="tertiary" size="small" className="mg-op-section-description">
          {t('modelSettings.geminiThinkingNote')}
        </Typography.Text>
        <Typography.Text type="tertiary" size="small" className="mg-op-section-description">
          {t('modelSettings.geminiFormula')}
        </Typography.Text>
      </div>
      <div className="mg-option-grid">
        <OptionSwitchField card={card} optionKey="gemini.thinking_adapter_enabled" />
        <OptionNumberField card={card} optionKey="gemini.thinking_adapter_budget_tokens_percentage" />
      </div>
    </OptionCardFrame>
  );
}

import { InputNumber, Select, Slider, Tag, TextArea, Typography } from '@douyinfe/semi-ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { normalizeLanguage } from '../../../i18n';
import { shownGroupDescription } from '../../../lib/group-description';
import type { UsableGroup } from '../api';
import { TEMPERATURE_MAX, TEMPERATURE_MIN, TEMPERATURE_STEP, type PlaygroundSettings } from '../conversation';

interface SettingsPanelProps {
  settings: PlaygroundSettings;
  onChange: (change: Partial<PlaygroundSettings>) => void;
  groupNames: string[];
  groups: Record<string, UsableGroup>;
  models: string[];
  loadingModels: boolean;
  loadingGroups: boolean;
}

function Field({ label, hint, htmlFor, children }: { label: string; hint?: string; htmlFor?: string; children: ReactNode }) {
  return (
    <div className="mg-pg-field">
      <label className="mg-pg-label" htmlFor={htmlFor}>
        {label}
      </label>
      {children}
      {hint && (
        <Typography.Text type="tertiary" size="small" className="mg-pg-hint">
          {hint}
        </Typography.Text>
      )}
    </div>
  );
}

/** The sidebar of spec 02 §2: group, model, temperature, max tokens and system prompt. */
export function SettingsPanel({ settings, onChange, groupNames, groups, models, loadingModels, loadingGroups }: SettingsPanelProps) {
  const { t, i18n } = useTranslation('playground');
  const { t: tCommon } = useTranslation('common');
  const language = normalizeLanguage(i18n.language);
  const groupLabel = (name: string) => {
    const desc = shownGroupDescription(groups[name]?.desc, language, tCommon);
    return desc ? t('settings.groupOption', { name, desc }) : name;
  };

  // No usable group listed: the call goes out with group '' and the server uses the user's own.
  const groupOptions =
    groupNames.length > 0
      ? groupNames.map((name) => ({
          value: name,
          label: (
            <span className="mg-pg-group-option">
              <span>{groupLabel(name)}</span>
              <Tag size="small" color="blue">
                {t('settings.groupRatio', { ratio: groups[name]?.ratio ?? 1 })}
              </Tag>
            </span>
          ),
        }))
      : [{ value: '', label: t('settings.ownGroup') }];

  return (
    <div className="mg-pg-settings" data-testid="pg-settings">
      <Field label={t('settings.group')} htmlFor="pg-group">
        <Select
          id="pg-group"
          value={settings.group}
          placeholder={t('settings.groupPlaceholder')}
          optionList={groupOptions}
          loading={loadingGroups}
          onChange={(value) => onChange({ group: String(value ?? '') })}
          className="mg-pg-control"
          data-testid="pg-group"
        />
      </Field>
      <Field label={t('settings.model')} htmlFor="pg-model" hint={!loadingModels && models.length === 0 ? t('settings.noModels') : undefined}>
        <Select
          id="pg-model"
          value={settings.model || undefined}
          placeholder={t('settings.modelPlaceholder')}
          optionList={models.map((model) => ({ value: model, label: model }))}
          loading={loadingModels}
          filter
          onChange={(value) => onChange({ model: String(value ?? '') })}
          className="mg-pg-control"
          data-testid="pg-model"
        />
      </Field>
      <Field label={t('settings.temperature')} hint={t('settings.temperatureHint')}>
        <div className="mg-pg-slider-row">
          <div className="mg-pg-slider">
            <Slider
              min={TEMPERATURE_MIN}
              max={TEMPERATURE_MAX}
              step={TEMPERATURE_STEP}
              value={settings.temperature}
              onChange={(value) => {
                if (typeof value === 'number') onChange({ temperature: value });
              }}
              tipFormatter={(value) => (typeof value === 'number' ? value.toFixed(1) : value)}
              aria-label={t('settings.temperature')}
            />
          </div>
          <Typography.Text strong className="mg-pg-slider-value" data-testid="pg-temperature-value">
            {settings.temperature.toFixed(1)}
          </Typography.Text>
        </div>
      </Field>
      <Field label={t('settings.maxTokens')} htmlFor="pg-max-tokens" hint={t('settings.maxTokensHint')}>
        <InputNumber
          id="pg-max-tokens"
          min={0}
          precision={0}
          value={settings.maxTokens}
          onNumberChange={(value) => onChange({ maxTokens: Number.isFinite(value) && value > 0 ? Math.floor(value) : 0 })}
          className="mg-pg-control"
          data-testid="pg-max-tokens"
        />
      </Field>
      <Field label={t('settings.systemPrompt')} htmlFor="pg-system">
        <TextArea
          id="pg-system"
          value={settings.systemPrompt}
          placeholder={t('settings.systemPromptPlaceholder')}
          autosize={{ minRows: 3, maxRows: 10 }}
          onChange={(value) => onChange({ systemPrompt: value })}
          data-testid="pg-system"
        />
      </Field>
    </div>
  );
}

import { Button, Input, Select, Switch, TextArea, Typography } from '@douyinfe/semi-ui';
import { useCallback, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type fieldTexts from '../../../i18n/locales/zh/settings-operation.json';
import type { OptionValues } from '../options/options-api';
import { isValidJson } from '../options/option-rules';
import type { OptionCard } from '../options/use-option-card';
import {
  acceptsNumberInput,
  firstNumberProblem,
  NUMBER_RULES,
  numberProblem,
  type NumberOptionKey,
  type NumberProblem,
  type NumberRule,
} from './operation-rules';

/**
 * The fields of the operation cards. Each takes the option's key; its label, hint and placeholder
 * come from the `settings-operation` namespace under fields.<key>, so a card lists keys, not texts.
 */

const fieldId = (key: string) => `op-field-${key}`;

interface FieldFrameProps {
  optionKey: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  /** Spans the whole row of the card's grid (text areas). */
  wide?: boolean;
  children: ReactNode;
}

function FieldFrame({ optionKey, label, hint, error, wide, children }: FieldFrameProps) {
  return (
    <div className={wide ? 'mg-op-field mg-op-field-wide' : 'mg-op-field'} data-testid={`op-${optionKey}`}>
      <label className="mg-op-label" htmlFor={fieldId(optionKey)} id={`${fieldId(optionKey)}-label`}>
        {label}
      </label>
      {children}
      {error && (
        <Typography.Text type="danger" size="small" className="mg-op-error" role="alert">
          {error}
        </Typography.Text>
      )}
      {hint && (
        <Typography.Text type="tertiary" size="small" className="mg-op-hint">
          {hint}
        </Typography.Text>
      )}
    </div>
  );
}

export type FieldKey = keyof typeof fieldTexts.fields;

interface FieldTexts {
  label: string;
  hint?: string;
  placeholder?: string;
}

/** The texts of one option in the current language; an absent hint or placeholder is not shown. */
function useFieldTexts(key: FieldKey): FieldTexts {
  const { t } = useTranslation('settings-operation');
  const texts: FieldTexts = t('fields', { returnObjects: true })[key];
  return texts;
}

interface FieldProps {
  card: OptionCard;
  optionKey: FieldKey;
  /** Replaces the hint from the texts (e.g. a hint that needs values). */
  hint?: ReactNode;
}

export function OptionTextField({ card, optionKey, hint }: FieldProps) {
  const texts = useFieldTexts(optionKey);
  return (
    <FieldFrame optionKey={optionKey} label={texts.label} hint={hint ?? texts.hint}>
      <Input id={fieldId(optionKey)} value={card.value(optionKey)} placeholder={texts.placeholder} showClear onChange={(next) => card.set(optionKey, next)} />
    </FieldFrame>
  );
}

/** The name of an option in the current language (keys with dots, such as claude.*, included). */
export function useFieldLabel(): (key: FieldKey) => string {
  const { t } = useTranslation('settings-operation');
  return useCallback((key: FieldKey) => (t('fields', { returnObjects: true }) as Record<string, FieldTexts>)[key]?.label ?? key, [t]);
}

/** The message for a refused number, naming the field and its minimum or maximum. */
export function useNumberProblemText(): (key: NumberOptionKey, problem: NumberProblem) => string {
  const { t } = useTranslation('settings-operation');
  const label = useFieldLabel();
  return useCallback(
    (key: NumberOptionKey, problem: NumberProblem) => {
      const rule: NumberRule = NUMBER_RULES[key];
      return t(`number.${problem}`, { name: label(key), min: rule.min, max: rule.max });
    },
    [t, label],
  );
}

/** A card's check of its numeric fields before anything is sent (spec 01 §5 minimums). */
export function useNumberCheck(keys: readonly NumberOptionKey[]): (values: OptionValues) => string | null {
  const problemText = useNumberProblemText();
  return useCallback(
    (values: OptionValues) => {
      const found = firstNumberProblem(values, keys);
      return found ? problemText(found.key, found.problem) : null;
    },
    [keys, problemText],
  );
}

interface NumberFieldProps extends FieldProps {
  optionKey: NumberOptionKey;
  suffix?: ReactNode;
  /** Shown under the field while its value is valid (e.g. the quota as money). */
  extra?: (value: string) => ReactNode;
}

/** Digits only (and a point where fractions are allowed); the minimum is shown as soon as it is broken. */
export function OptionNumberField({ card, optionKey, hint, suffix, extra }: NumberFieldProps) {
  const texts = useFieldTexts(optionKey);
  const problemText = useNumberProblemText();
  const rule = NUMBER_RULES[optionKey];
  const value = card.value(optionKey);
  const problem = numberProblem(value, rule);
  const below = !problem && extra ? extra(value) : null;
  return (
    <FieldFrame
      optionKey={optionKey}
      label={texts.label}
      hint={
        below ? (
          <>
            <span className="mg-op-extra">{below}</span>
            {(hint ?? texts.hint) && <span> · {hint ?? texts.hint}</span>}
          </>
        ) : (
          (hint ?? texts.hint)
        )
      }
      error={problem ? problemText(optionKey, problem) : undefined}
    >
      <Input
        id={fieldId(optionKey)}
        value={value}
        inputMode={rule.integer ? 'numeric' : 'decimal'}
        placeholder={texts.placeholder}
        suffix={suffix}
        validateStatus={problem ? 'error' : 'default'}
        aria-invalid={problem ? true : undefined}
        onChange={(next) => {
          if (acceptsNumberInput(next, rule)) card.set(optionKey, next);
        }}
      />
    </FieldFrame>
  );
}

/** A switch tile: the switch, its name and what it does. Saved with the card's button. */
export function OptionSwitchField({ card, optionKey, hint }: FieldProps) {
  const texts = useFieldTexts(optionKey);
  const id = fieldId(optionKey);
  return (
    <div className="mg-op-switch" data-testid={`op-${optionKey}`}>
      <Switch id={id} aria-labelledby={`${id}-label`} checked={card.bool(optionKey)} onChange={(checked) => card.set(optionKey, checked)} />
      <div className="mg-op-switch-text">
        <label className="mg-op-label" htmlFor={id} id={`${id}-label`}>
          {texts.label}
        </label>
        {(hint ?? texts.hint) && (
          <Typography.Text type="tertiary" size="small" className="mg-op-hint">
            {hint ?? texts.hint}
          </Typography.Text>
        )}
      </div>
    </div>
  );
}

interface SelectFieldProps extends FieldProps {
  choices: { value: string; label: string }[];
}

export function OptionSelectField({ card, optionKey, hint, choices }: SelectFieldProps) {
  const texts = useFieldTexts(optionKey);
  const id = fieldId(optionKey);
  return (
    <FieldFrame optionKey={optionKey} label={texts.label} hint={hint ?? texts.hint}>
      <Select
        id={id}
        aria-labelledby={`${id}-label`}
        value={card.value(optionKey)}
        optionList={choices}
        onChange={(next) => card.set(optionKey, String(next))}
        style={{ width: '100%' }}
      />
    </FieldFrame>
  );
}

interface TextAreaFieldProps extends FieldProps {
  /** JSON options: the §5 message under the field while the text does not parse, and a format button. */
  json?: { name: string };
  minRows?: number;
  /** Below the text area, beside the hint (e.g. a word count). */
  footer?: ReactNode;
}

export function OptionTextAreaField({ card, optionKey, hint, json, minRows = 6, footer }: TextAreaFieldProps) {
  const { t } = useTranslation(['settings-operation', 'settings']);
  const texts = useFieldTexts(optionKey);
  const value = card.value(optionKey);
  const invalid = json !== undefined && value.trim() !== '' && !isValidJson(value);
  const format = () => card.set(optionKey, JSON.stringify(JSON.parse(value), null, 2));
  return (
    <FieldFrame
      optionKey={optionKey}
      wide
      label={texts.label}
      hint={hint ?? texts.hint}
      error={invalid ? t('settings:options.invalidJson', { name: json.name }) : undefined}
    >
      <TextArea
        id={fieldId(optionKey)}
        className="mg-op-textarea"
        value={value}
        placeholder={texts.placeholder}
        autosize={{ minRows, maxRows: 16 }}
        validateStatus={invalid ? 'error' : 'default'}
        spellCheck={false}
        onChange={(next) => card.set(optionKey, next)}
      />
      {(footer || json) && (
        <div className="mg-op-textarea-footer">
          <span>{footer}</span>
          {json && (
            <Button size="small" theme="borderless" disabled={invalid || value.trim() === ''} onClick={format}>
              {t('json.format')}
            </Button>
          )}
        </div>
      )}
    </FieldFrame>
  );
}

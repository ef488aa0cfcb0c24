import { Input, Switch, Typography } from '@douyinfe/semi-ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { OptionCard } from '../options/use-option-card';

/** Each key appears once on the tab, so its name makes a unique element id. */
const fieldId = (optionKey: string) => `system-option-${optionKey}`;

interface FieldFrameProps {
  /** The control's id; without one the label only names the block (the control has its own aria-label). */
  id?: string;
  label: string;
  hint?: ReactNode;
  children: ReactNode;
}

/** A label above its control, with a small hint below. */
export function FieldFrame({ id, label, hint, children }: FieldFrameProps) {
  return (
    <div className="mg-system-field">
      {id ? (
        <label htmlFor={id} className="mg-field-label">
          {label}
        </label>
      ) : (
        <span className="mg-field-label">{label}</span>
      )}
      {children}
      {hint && (
        <Typography.Text type="tertiary" size="small" className="mg-system-hint">
          {hint}
        </Typography.Text>
      )}
    </div>
  );
}

interface TextFieldProps {
  card: OptionCard;
  optionKey: string;
  label: string;
  placeholder?: string;
  hint?: ReactNode;
  inputMode?: 'text' | 'decimal' | 'numeric' | 'url';
}

/** A plain text option. */
export function TextField({ card, optionKey, label, placeholder, hint, inputMode }: TextFieldProps) {
  const id = fieldId(optionKey);
  return (
    <FieldFrame id={id} label={label} hint={hint}>
      <Input
        id={id}
        value={card.value(optionKey)}
        onChange={(value) => card.set(optionKey, value)}
        placeholder={placeholder}
        inputMode={inputMode}
        autoComplete="off"
      />
    </FieldFrame>
  );
}

/**
 * A write-only secret: the server never sends it, so the field always starts empty and saving it
 * empty keeps the stored value (useOptionCard skips keys absent from GET /api/option/).
 */
export function SecretField({ card, optionKey, label }: Omit<TextFieldProps, 'placeholder' | 'hint' | 'inputMode'>) {
  const { t } = useTranslation('settings-system');
  const id = fieldId(optionKey);
  return (
    <FieldFrame id={id} label={label} hint={t('secretHint')}>
      <Input
        id={id}
        mode="password"
        value={card.value(optionKey)}
        onChange={(value) => card.set(optionKey, value)}
        placeholder={t('secretPlaceholder')}
        autoComplete="new-password"
      />
    </FieldFrame>
  );
}

interface SwitchFieldProps {
  card: OptionCard;
  optionKey: string;
  label: string;
  hint?: ReactNode;
  /** Replaces the plain set (e.g. to confirm before switching off). */
  onChange?: (checked: boolean) => void;
  /** Shown instead of the stored value (e.g. SSL forced on by the port). */
  checked?: boolean;
  disabled?: boolean;
}

/** A true/false option: the switch, its label and what it does. */
export function SwitchField({ card, optionKey, label, hint, onChange, checked, disabled }: SwitchFieldProps) {
  const id = fieldId(optionKey);
  return (
    <div className="mg-system-switch">
      <Switch
        id={id}
        checked={checked ?? card.bool(optionKey)}
        disabled={disabled}
        onChange={(next) => (onChange ? onChange(next) : card.set(optionKey, next))}
      />
      <div className="mg-system-switch-text">
        <label htmlFor={id} className="mg-system-switch-label">
          {label}
        </label>
        {hint && (
          <Typography.Text type="tertiary" size="small">
            {hint}
          </Typography.Text>
        )}
      </div>
    </div>
  );
}

import { Button, TextArea, Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import type { OptionCard } from '../../options/use-option-card';
import { PRICING_KEYS, type MapProblem } from './model-pricing-rules';

interface ModelPricingJsonProps {
  card: OptionCard;
  /** Each option's problem, if its text is not a map of non-negative numbers. */
  problems: Partial<Record<(typeof PRICING_KEYS)[number], MapProblem>>;
  /** The message for a problem, as the save would show it. */
  describe: (key: (typeof PRICING_KEYS)[number], problem: MapProblem) => string;
}

/** The JSON tab: the five options as text, checked as they are typed and again before saving. */
export function ModelPricingJson({ card, problems, describe }: ModelPricingJsonProps) {
  const { t } = useTranslation('settings-model-pricing');
  return (
    <div className="mg-pricing-json">
      {PRICING_KEYS.map((key) => {
        const problem = problems[key];
        return (
          <div key={key} className="mg-pricing-json-field">
            <label className="mg-field-label" htmlFor={`model-pricing-${key}`}>
              {t(`names.${key}`)}
              <span className="mg-pricing-json-key">{key}</span>
            </label>
            <Typography.Text type="tertiary" size="small">
              {t(`json.${key}Help`)}
            </Typography.Text>
            <TextArea
              id={`model-pricing-${key}`}
              value={card.value(key)}
              onChange={(value) => card.set(key, value)}
              placeholder={t(`json.${key}Placeholder`)}
              autosize={{ minRows: 6, maxRows: 14 }}
              validateStatus={problem ? 'error' : 'default'}
              className="mg-pricing-json-text"
              spellCheck={false}
              data-testid={`model-pricing-json-${key}`}
            />
            <div className="mg-pricing-json-footer">
              {problem ? (
                <Typography.Text type="danger" size="small" className="mg-pricing-field-error" data-testid={`model-pricing-json-error-${key}`}>
                  {describe(key, problem)}
                </Typography.Text>
              ) : (
                <span />
              )}
              <Button
                size="small"
                theme="borderless"
                disabled={problem?.kind === 'json'}
                data-testid={`model-pricing-format-${key}`}
                onClick={() => card.set(key, JSON.stringify(JSON.parse(card.value(key) || '{}'), null, 2))}
              >
                {t('json.format')}
              </Button>
            </div>
          </div>
        );
      })}
    </div>
  );
}

import { IconFilter } from '@douyinfe/semi-icons';
import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { RateLimitTags } from '../../../components/shared/rate-limit-fields';
import type { OptionValues } from '../options/options-api';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionTextAreaField, useFieldLabel } from './option-fields';
import { rateLimitEntries, rateLimitMapIssue } from './rate-limit-rules';

const KEYS = ['GroupRateLimits', 'ModelRateLimits'] as const;

/**
 * 分组与模型速率限制: GroupRateLimits and ModelRateLimits (relay/rate-limits/ on the server), each
 * user's calls in a group or of a model, with the limits read back as tags under the card's title.
 */
export function GroupRateLimitCard() {
  const { t } = useTranslation('settings-operation');
  const label = useFieldLabel();
  const jsonNames = Object.fromEntries(KEYS.map((key) => [key, label(key)]));
  const validate = (values: OptionValues) => {
    for (const key of KEYS) {
      const issue = rateLimitMapIssue(values[key] ?? '');
      if (issue) return t(`json.${issue.problem}`, { name: label(key), entry: issue.entry });
    }
    return null;
  };
  const card = useOptionCard(KEYS, { validate, jsonNames });
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.groupRateLimits.title')}
      icon={<IconFilter />}
      description={t('cards.groupRateLimits.description')}
      testId="op-card-group-rate-limits"
    >
      {KEYS.map((key) => {
        const entries = rateLimitEntries(card.value(key));
        return (
          <div key={key} className="mg-op-readout" data-testid={`op-rate-limit-tags-${key}`}>
            <span className="mg-op-readout-label">
              {label(key)} · {t('groupLimits.current')}
            </span>
            {entries === null ? (
              <Typography.Text type="warning" size="small">
                {t('groupLimits.unreadable')}
              </Typography.Text>
            ) : entries.length === 0 ? (
              <Typography.Text type="tertiary" size="small">
                {t('groupLimits.none')}
              </Typography.Text>
            ) : (
              entries.map(({ name, figures }) => (
                <span key={name} className="mg-op-rate-limit-entry">
                  <Typography.Text strong size="small">
                    {name}
                  </Typography.Text>
                  <RateLimitTags figures={figures} />
                </span>
              ))
            )}
          </div>
        );
      })}
      <div className="mg-option-grid mg-op-json-grid">
        {KEYS.map((key) => (
          <OptionTextAreaField key={key} card={card} optionKey={key} json={{ name: label(key) }} />
        ))}
      </div>
    </OptionCardFrame>
  );
}

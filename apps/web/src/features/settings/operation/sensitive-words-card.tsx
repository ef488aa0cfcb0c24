import { IconShield } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionSwitchField, OptionTextAreaField } from './option-fields';
import { countSensitiveWords } from './operation-rules';

const KEYS = [
  'CheckSensitiveEnabled',
  'CheckSensitiveOnPromptEnabled',
  'CheckSensitiveOnCompletionEnabled',
  'StopOnSensitiveEnabled',
  'SensitiveWords',
] as const;
const SWITCHES = KEYS.filter((key) => key !== 'SensitiveWords');

/** 屏蔽词过滤设置: where the relay checks for listed words, and the list (one word per line). */
export function SensitiveWordsCard() {
  const { t } = useTranslation('settings-operation');
  const card = useOptionCard(KEYS);
  const count = countSensitiveWords(card.value('SensitiveWords'));
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.sensitive.title')}
      icon={<IconShield />}
      description={t('cards.sensitive.description')}
      testId="op-card-sensitive"
    >
      <div className="mg-option-grid mg-op-switches">
        {SWITCHES.map((key) => (
          <OptionSwitchField key={key} card={card} optionKey={key} />
        ))}
      </div>
      <div className="mg-option-grid">
        <OptionTextAreaField
          card={card}
          optionKey="SensitiveWords"
          minRows={6}
          footer={
            <span data-testid="op-sensitive-count">
              {t('sensitive.count', { count: count.words })}
              {count.duplicates > 0 && t('sensitive.duplicates', { count: count.duplicates })}
            </span>
          }
        />
      </div>
    </OptionCardFrame>
  );
}

import { IconImage } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionSwitchField } from './option-fields';

const KEYS = [
  'DrawingEnabled',
  'MjNotifyEnabled',
  'MjAccountFilterEnabled',
  'MjForwardUrlEnabled',
  'MjModeClearEnabled',
  'MjActionCheckSuccessEnabled',
  'TaskEnabled',
] as const;

/** 绘图设置: the drawing (Midjourney proxy) switches, each with what it changes. */
export function DrawingCard() {
  const { t } = useTranslation('settings-operation');
  const card = useOptionCard(KEYS);
  return (
    <OptionCardFrame card={card} title={t('cards.drawing.title')} icon={<IconImage />} description={t('cards.drawing.description')} testId="op-card-drawing">
      <div className="mg-option-grid mg-op-switches">
        {KEYS.map((key) => (
          <OptionSwitchField key={key} card={card} optionKey={key} />
        ))}
      </div>
    </OptionCardFrame>
  );
}

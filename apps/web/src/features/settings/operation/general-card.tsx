import { IconSetting } from '@douyinfe/semi-icons';
import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionNumberField, OptionSwitchField, OptionTextField, useNumberCheck } from './option-fields';
import type { NumberOptionKey } from './operation-rules';

const KEYS = [
  'TopUpLink',
  'ChatLink',
  'ChatLink2',
  'QuotaPerUnit',
  'RetryTimes',
  'StreamCacheQueueLength',
  'DisplayInCurrencyEnabled',
  'DisplayTokenStatEnabled',
  'DefaultCollapseSidebar',
  'general_setting.docs_link',
  'DemoSiteEnabled',
  'SelfUseModeEnabled',
  'ChannelAffinityEnabled',
  'ChannelAffinityTTLSeconds',
  'ChannelAffinityMaxEntries',
  'ChannelAffinityHeader',
] as const;
const NUMBERS: readonly NumberOptionKey[] = ['QuotaPerUnit', 'RetryTimes', 'StreamCacheQueueLength', 'ChannelAffinityTTLSeconds', 'ChannelAffinityMaxEntries'];

/**
 * 通用设置: links (with new-api's documentation link), the quota unit, retries, how quota and the
 * side nav are shown, new-api's demo-site and self-use modes, and channel affinity (an agent
 * session's calls kept on one channel).
 */
export function GeneralCard() {
  const { t } = useTranslation('settings-operation');
  const validate = useNumberCheck(NUMBERS);
  const card = useOptionCard(KEYS, { validate });
  return (
    <OptionCardFrame card={card} title={t('cards.general.title')} icon={<IconSetting />} description={t('cards.general.description')} testId="op-card-general">
      <div className="mg-option-grid">
        <OptionTextField card={card} optionKey="TopUpLink" />
        <OptionTextField card={card} optionKey="ChatLink" />
        <OptionTextField card={card} optionKey="ChatLink2" />
        <OptionTextField card={card} optionKey="general_setting.docs_link" />
        <OptionNumberField card={card} optionKey="QuotaPerUnit" />
        <OptionNumberField card={card} optionKey="RetryTimes" suffix={t('units.times')} />
        <OptionNumberField card={card} optionKey="StreamCacheQueueLength" />
      </div>
      <div className="mg-option-grid mg-op-switches">
        <OptionSwitchField card={card} optionKey="DisplayInCurrencyEnabled" />
        <OptionSwitchField card={card} optionKey="DisplayTokenStatEnabled" />
        <OptionSwitchField card={card} optionKey="DefaultCollapseSidebar" />
        <OptionSwitchField card={card} optionKey="DemoSiteEnabled" />
        <OptionSwitchField card={card} optionKey="SelfUseModeEnabled" />
      </div>
      <div className="mg-op-section">
        <Typography.Title heading={6} className="mg-op-section-title">
          {t('general.affinityTitle')}
        </Typography.Title>
        <Typography.Text type="tertiary" size="small" className="mg-op-section-description">
          {t('general.affinityDescription')}
        </Typography.Text>
      </div>
      <div className="mg-option-grid mg-op-switches">
        <OptionSwitchField card={card} optionKey="ChannelAffinityEnabled" />
      </div>
      <div className="mg-option-grid">
        <OptionNumberField card={card} optionKey="ChannelAffinityTTLSeconds" suffix={t('units.seconds')} />
        <OptionNumberField card={card} optionKey="ChannelAffinityMaxEntries" />
        <OptionTextField card={card} optionKey="ChannelAffinityHeader" />
      </div>
    </OptionCardFrame>
  );
}

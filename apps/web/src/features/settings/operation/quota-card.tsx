import { IconCoinMoneyStroked } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard, useOptions } from '../options/use-option-card';
import { OptionNumberField, useNumberCheck } from './option-fields';
import { quotaAsDollars, type NumberOptionKey } from './operation-rules';

const KEYS = [
  'QuotaForNewUser',
  'PreConsumedQuota',
  'QuotaForInviter',
  'QuotaForInvitee',
  'QuotaRemindThreshold',
] as const satisfies readonly NumberOptionKey[];

/** 额度设置: the quotas handed out and held back, each also shown as money at the saved QuotaPerUnit. */
export function QuotaCard() {
  const { t } = useTranslation('settings-operation');
  const validate = useNumberCheck(KEYS);
  const card = useOptionCard(KEYS, { validate });
  const quotaPerUnit = useOptions().data?.QuotaPerUnit ?? '';
  const asMoney = (value: string) => {
    const dollars = quotaAsDollars(value, quotaPerUnit);
    return dollars && t('quota.asMoney', { amount: dollars });
  };
  return (
    <OptionCardFrame
      card={card}
      title={t('cards.quota.title')}
      icon={<IconCoinMoneyStroked />}
      description={t('cards.quota.description')}
      testId="op-card-quota"
    >
      <div className="mg-option-grid">
        {KEYS.map((key) => (
          <OptionNumberField key={key} card={card} optionKey={key} suffix={t('units.quota')} extra={asMoney} />
        ))}
      </div>
    </OptionCardFrame>
  );
}

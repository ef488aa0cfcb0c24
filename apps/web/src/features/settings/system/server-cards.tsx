import { IconCloud, IconCreditCard, IconServer } from '@douyinfe/semi-icons';
import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { normaliseOptionDraft } from '../options/option-rules';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard, useOptions, type OptionCard } from '../options/use-option-card';
import { SecretField, TextField } from './option-fields';
import { numberProblem, serverAddressProblem } from './system-rules';

export const GENERAL_KEYS = ['ServerAddress'] as const;
const WORKER_KEYS = ['WorkerUrl', 'WorkerValidKey'] as const;
const PAYMENT_KEYS = ['PayAddress', 'EpayId', 'EpayKey', 'Price', 'MinTopUp', 'CustomCallbackAddress'] as const;

/** The server address; its card state lives in the tab so the payment card can see what is typed. */
export function GeneralCard({ card }: { card: OptionCard }) {
  const { t } = useTranslation('settings-system');
  return (
    <OptionCardFrame card={card} testId="system-general" icon={<IconServer />} title={t('general.title')} description={t('general.description')}>
      <div className="mg-option-grid">
        <TextField
          card={card}
          optionKey="ServerAddress"
          label={t('general.serverAddress')}
          placeholder={t('general.serverAddressPlaceholder')}
          hint={t('general.serverAddressHint')}
          inputMode="url"
        />
      </div>
    </OptionCardFrame>
  );
}

export function WorkerCard() {
  const { t } = useTranslation('settings-system');
  const card = useOptionCard(WORKER_KEYS);
  return (
    <OptionCardFrame card={card} testId="system-worker" icon={<IconCloud />} title={t('worker.title')} description={t('worker.description')}>
      <div className="mg-option-grid">
        <TextField card={card} optionKey="WorkerUrl" label={t('worker.url')} placeholder={t('worker.urlPlaceholder')} inputMode="url" />
        <SecretField card={card} optionKey="WorkerValidKey" label={t('worker.key')} />
      </div>
    </OptionCardFrame>
  );
}

/**
 * Epay settings. Callbacks are built from the stored server address, so saving needs one
 * (请先填写服务器地址) before anything is sent.
 */
export function PaymentCard({ general }: { general: OptionCard }) {
  const { t } = useTranslation('settings-system');
  const savedServerAddress = useOptions().data?.ServerAddress;
  const card = useOptionCard(PAYMENT_KEYS, {
    validate: (values) => {
      const problem = serverAddressProblem(savedServerAddress, general.value('ServerAddress'));
      if (problem === 'missing') return t('payment.serverAddressMissing');
      if (problem === 'unsaved') return t('payment.serverAddressUnsaved');
      if (numberProblem(values.Price ?? '', { min: 0, exclusiveMin: true })) return t('payment.priceInvalid');
      if (numberProblem(values.MinTopUp ?? '', { integer: true, min: 0 })) return t('payment.minTopUpInvalid');
      return null;
    },
  });
  const callback =
    normaliseOptionDraft('CustomCallbackAddress', card.value('CustomCallbackAddress')) || normaliseOptionDraft('ServerAddress', savedServerAddress ?? '');

  return (
    <OptionCardFrame card={card} testId="system-payment" icon={<IconCreditCard />} title={t('payment.title')} description={t('payment.description')}>
      <div className="mg-option-grid">
        <TextField card={card} optionKey="PayAddress" label={t('payment.address')} placeholder={t('payment.addressPlaceholder')} inputMode="url" />
        <TextField card={card} optionKey="EpayId" label={t('payment.epayId')} placeholder={t('payment.epayIdPlaceholder')} />
        <SecretField card={card} optionKey="EpayKey" label={t('payment.epayKey')} />
        <TextField card={card} optionKey="Price" label={t('payment.price')} hint={t('payment.priceHint')} inputMode="decimal" />
        <TextField card={card} optionKey="MinTopUp" label={t('payment.minTopUp')} hint={t('payment.minTopUpHint')} inputMode="numeric" />
        <TextField card={card} optionKey="CustomCallbackAddress" label={t('payment.callback')} placeholder={t('payment.callbackPlaceholder')} inputMode="url" />
      </div>
      <Typography.Text type={callback ? 'tertiary' : 'warning'} size="small" className="mg-system-note" data-testid="payment-callback">
        {callback ? t('payment.effectiveCallback', { address: callback }) : t('payment.noCallback')}
      </Typography.Text>
    </OptionCardFrame>
  );
}

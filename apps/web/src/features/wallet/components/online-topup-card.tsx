import { Banner, Button, Card, InputNumber, Modal, Spin, Toast, Typography } from '@douyinfe/semi-ui';
import { IconShoppingBag } from '@douyinfe/semi-icons';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { quotaPerUnit, useQuotaFormatter } from '../../../lib/quota';
import { useStatus } from '../../status/queries';
import { quoteTopUp, type PaymentMethod } from '../api';
import { useRequestPayment, useTopUpQuote, walletKeys } from '../queries';
import { submitPaymentForm } from '../submit-payment-form';
import { CardTitle } from './redeem-card';

/** Spec 02 §5: the amount is at least min_topup, and anything below 1 becomes 1. */
export function minimumTopUp(minTopUp: number | undefined): number {
  const minimum = Math.floor(Number(minTopUp));
  return Number.isFinite(minimum) && minimum > 1 ? minimum : 1;
}

function normalizeAmount(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const amount = Math.floor(Number(value));
  if (!Number.isFinite(amount)) return null;
  return amount < 1 ? 1 : amount;
}

const METHOD_LABEL_KEY = { zfb: 'online.alipay', wx: 'online.wechat' } as const;

/** Online top-up through Epay: a live quote, then a confirmation, then the gateway's form. */
export function OnlineTopUpCard() {
  const { t } = useTranslation('wallet');
  const status = useStatus();
  const formatQuota = useQuotaFormatter();
  const queryClient = useQueryClient();
  const enabled = status.enable_online_topup === true;
  const minimum = minimumTopUp(status.min_topup);
  const [amount, setAmount] = useState<number | null>(minimum);
  const [confirming, setConfirming] = useState<{ method: PaymentMethod; price: string; amount: number } | null>(null);
  const [preparing, setPreparing] = useState<PaymentMethod | null>(null);
  const payment = useRequestPayment();

  const belowMinimum = amount === null || amount < minimum;
  const quote = useTopUpQuote(belowMinimum ? null : amount, enabled);

  const startPayment = async (method: PaymentMethod) => {
    if (!enabled) {
      Toast.error(t('online.disabled'));
      return;
    }
    if (amount === null || amount < minimum) {
      Toast.error(t('online.belowMinimum', { min: minimum }));
      return;
    }
    setPreparing(method);
    try {
      // The confirmation shows the server's price for exactly this amount, never a stale one.
      const price = await queryClient.fetchQuery({ queryKey: walletKeys.quote(amount), queryFn: () => quoteTopUp(amount), staleTime: 60_000 });
      setConfirming({ method, price, amount });
    } catch (error) {
      Toast.error(error instanceof Error ? error.message : t('online.quoteFailed'));
    } finally {
      setPreparing(null);
    }
  };

  const pay = () => {
    if (!confirming) return;
    payment.mutate(
      { amount: confirming.amount, method: confirming.method },
      {
        onSuccess: (form) => {
          Toast.info(t('online.redirecting'));
          submitPaymentForm(form);
        },
        onSettled: () => setConfirming(null),
      },
    );
  };

  const amountInQuota = (units: number) => formatQuota(units * quotaPerUnit(status));

  return (
    <Card bordered className="mg-wallet-card" title={<CardTitle icon={<IconShoppingBag />} title={t('online.title')} />}>
      <Typography.Paragraph type="tertiary" className="mg-wallet-card-lead">
        {t('online.description')}
      </Typography.Paragraph>
      {!enabled && <Banner type="warning" closeIcon={null} description={t('online.disabled')} className="mg-wallet-banner" data-testid="online-disabled" />}
      <div className="mg-wallet-field">
        <Typography.Text strong>{t('online.amount')}</Typography.Text>
        <InputNumber
          value={amount ?? undefined}
          onChange={(value) => setAmount(normalizeAmount(value))}
          min={1}
          precision={0}
          size="large"
          disabled={!enabled}
          placeholder={t('online.amountPlaceholder', { min: minimum })}
          style={{ width: '100%' }}
          validateStatus={enabled && belowMinimum ? 'error' : 'default'}
          data-testid="topup-amount"
        />
        {enabled && belowMinimum ? (
          <Typography.Text type="danger" size="small" data-testid="topup-amount-error">
            {t('online.belowMinimum', { min: minimum })}
          </Typography.Text>
        ) : (
          <Typography.Text type="tertiary" size="small">
            {t('online.minimum', { min: minimum })}
            {amount !== null && ` · ${amountInQuota(amount)}`}
          </Typography.Text>
        )}
      </div>

      <div className="mg-wallet-price">
        <Typography.Text type="tertiary">{t('online.price')}</Typography.Text>
        <span className="mg-wallet-price-value" data-testid="topup-price">
          {!enabled || belowMinimum ? (
            '—'
          ) : quote.isFetching || quote.settling ? (
            <Spin size="small" tip={t('online.quoting')} />
          ) : quote.isError ? (
            <Typography.Text type="danger">{quote.error instanceof Error ? quote.error.message : t('online.quoteFailed')}</Typography.Text>
          ) : quote.data ? (
            t('online.priceValue', { money: quote.data })
          ) : (
            '—'
          )}
        </span>
      </div>

      <div className="mg-wallet-buttons">
        <Button
          size="large"
          theme="solid"
          className="mg-pay-alipay"
          disabled={!enabled}
          loading={preparing === 'zfb'}
          onClick={() => void startPayment('zfb')}
          data-testid="pay-zfb"
        >
          {t('online.alipay')}
        </Button>
        <Button
          size="large"
          theme="solid"
          className="mg-pay-wechat"
          disabled={!enabled}
          loading={preparing === 'wx'}
          onClick={() => void startPayment('wx')}
          data-testid="pay-wx"
        >
          {t('online.wechat')}
        </Button>
      </div>

      <Modal
        title={t('online.confirmTitle')}
        visible={confirming !== null}
        onOk={pay}
        onCancel={() => setConfirming(null)}
        okButtonProps={{ loading: payment.isPending }}
        maskClosable={false}
        centered
        size="small"
      >
        {confirming && (
          <div className="mg-wallet-confirm" data-testid="topup-confirm">
            <p>{t('online.confirmAmount', { amount: `${confirming.amount} (${amountInQuota(confirming.amount)})` })}</p>
            <p>{t('online.confirmPrice', { price: t('online.priceValue', { money: confirming.price }) })}</p>
            <p>{t('online.confirmMethod', { method: t(METHOD_LABEL_KEY[confirming.method]) })}</p>
            <p>{t('online.confirmQuestion')}</p>
          </div>
        )}
      </Modal>
    </Card>
  );
}

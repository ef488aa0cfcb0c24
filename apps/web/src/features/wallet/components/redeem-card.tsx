import { Button, Card, Input, Modal, Toast, Typography } from '@douyinfe/semi-ui';
import { IconGiftStroked, IconLink } from '@douyinfe/semi-icons';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../../lib/quota';
import { useStatus } from '../../status/queries';
import { useRedeemCode } from '../queries';

/** Redeem by code (spec 02 §5: the code must not be empty) and the admin's link to buy codes. */
export function RedeemCard() {
  const { t } = useTranslation('wallet');
  const status = useStatus();
  const formatQuota = useQuotaFormatter();
  const redeem = useRedeemCode();
  const [code, setCode] = useState('');
  // A ref, not isPending: a double click delivers both clicks before React re-renders the button.
  const inFlight = useRef(false);

  const submit = () => {
    const key = code.trim();
    if (!key) {
      Toast.warning(t('redeem.empty'));
      return;
    }
    // The server credits a code once whatever arrives; this keeps a second click from showing its refusal.
    if (inFlight.current) return;
    inFlight.current = true;
    redeem.mutate(key, {
      onSettled: () => {
        inFlight.current = false;
      },
      onSuccess: (added) => {
        setCode('');
        // One confirmation, the modal with the amount (new-api shows a toast and this modal together).
        Modal.success({
          title: t('redeem.success'),
          content: t('redeem.successContent', { amount: formatQuota(added) }),
          centered: true,
          hasCancel: false,
          // The second click of a double click can land on the mask once the answer is quick: it must not dismiss the amount.
          maskClosable: false,
        });
      },
    });
  };

  const openTopUpLink = () => {
    if (!status.top_up_link) {
      Toast.error(t('redeem.noTopUpLink'));
      return;
    }
    window.open(status.top_up_link, '_blank', 'noopener,noreferrer');
  };

  return (
    <Card bordered className="mg-wallet-card" title={<CardTitle icon={<IconGiftStroked />} title={t('redeem.title')} />}>
      <Typography.Paragraph type="tertiary" className="mg-wallet-card-lead">
        {t('redeem.description')}
      </Typography.Paragraph>
      <form
        className="mg-wallet-redeem"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Input value={code} onChange={setCode} placeholder={t('redeem.placeholder')} size="large" showClear className="mg-mono" data-testid="redeem-code" />
        <div className="mg-wallet-buttons">
          <Button size="large" icon={<IconLink />} onClick={openTopUpLink} data-testid="buy-codes">
            {t('redeem.buyCodes')}
          </Button>
          <Button size="large" htmlType="submit" theme="solid" type="primary" loading={redeem.isPending} data-testid="redeem-submit">
            {redeem.isPending ? t('redeem.submitting') : t('redeem.submit')}
          </Button>
        </div>
      </form>
    </Card>
  );
}

export function CardTitle({ icon, title }: { icon: ReactNode; title: string }) {
  return (
    <span className="mg-wallet-card-title">
      {icon}
      {title}
    </span>
  );
}

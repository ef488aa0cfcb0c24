import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { BalanceCard } from './components/balance-card';
import { OnlineTopUpCard } from './components/online-topup-card';
import { RedeemCard } from './components/redeem-card';
import './wallet.css';

/** /topup: balance, redeem a code, online top-up (spec 02 §2 "Wallet"). */
export default function WalletPage() {
  const { t } = useTranslation('wallet');
  return (
    <div className="mg-page mg-wallet">
      <Typography.Title heading={4} className="mg-wallet-title">
        {t('title')}
      </Typography.Title>
      <BalanceCard />
      <div className="mg-wallet-grid">
        <RedeemCard />
        <OnlineTopUpCard />
      </div>
    </div>
  );
}

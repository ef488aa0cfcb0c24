import { Button, Empty, Spin } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { useSelfProfile } from '../queries';
import { AccountOverview } from './account-overview';
import { BindingsCard } from './bindings-card';
import { InvitationCard } from './invitation-card';
import { ModelsCard } from './models-card';
import { NotifySettingsCard } from './notify-settings-card';
import { PasskeysCard } from '../../passkeys/components/passkeys-card';
import { SecurityCard } from './security-card';
import { TwoFactorCard } from './two-factor-card';

/** The personal tab (spec 01 §2): balance, invitation, bindings, models, access token, password, deletion, quota warning. */
export function PersonalSettings() {
  const { t } = useTranslation(['settings', 'common']);
  const profile = useSelfProfile();

  if (profile.isPending) {
    return (
      <div className="mg-settings-loading">
        <Spin size="large" />
      </div>
    );
  }
  if (!profile.data) {
    return (
      <Empty title={t('common:pageError.title')} description={t('common:pageError.description')}>
        <Button onClick={() => void profile.refetch()}>{t('common:actions.reload')}</Button>
      </Empty>
    );
  }

  const user = profile.data;
  return (
    <div className="mg-personal">
      <AccountOverview profile={user} />
      <div className="mg-personal-grid">
        <div className="mg-personal-column">
          <InvitationCard profile={user} />
          <ModelsCard />
        </div>
        <div className="mg-personal-column">
          <BindingsCard profile={user} />
          <SecurityCard profile={user} />
          <TwoFactorCard />
          <PasskeysCard />
          <NotifySettingsCard profile={user} />
        </div>
      </div>
    </div>
  );
}

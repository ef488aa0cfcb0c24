import { Avatar, Card, Tag, Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { useQuotaFormatter } from '../../../lib/quota';
import { RoleTag } from '../../users/components/user-tags';
import type { SelfProfile } from '../api';

interface StatProps {
  label: string;
  value: string;
  testId: string;
}

function Stat({ label, value, testId }: StatProps) {
  return (
    <div className="mg-stat">
      <Typography.Text type="tertiary" size="small">
        {label}
      </Typography.Text>
      <Typography.Title heading={3} className="mg-stat-value" data-testid={testId}>
        {value}
      </Typography.Title>
    </div>
  );
}

/** Who is signed in and the three numbers of spec 01 §2: balance, historical consumption, requests. */
export function AccountOverview({ profile }: { profile: SelfProfile }) {
  const { t } = useTranslation('settings');
  const formatQuota = useQuotaFormatter();
  const name = profile.display_name || profile.username;

  return (
    <Card className="mg-overview" bordered>
      <div className="mg-overview-identity">
        <Avatar size="large" color="blue">
          {name.slice(0, 1).toUpperCase()}
        </Avatar>
        <div className="mg-overview-names">
          <Typography.Title heading={4} className="mg-overview-name">
            {name}
          </Typography.Title>
          <div className="mg-overview-tags">
            <Typography.Text type="tertiary">@{profile.username}</Typography.Text>
            <RoleTag role={profile.role} />
            <Tag color="light-blue">
              {t('overview.group')}: {profile.group || '-'}
            </Tag>
            <Tag color="white">
              {t('overview.userId')}: {profile.id}
            </Tag>
          </div>
        </div>
      </div>
      <div className="mg-overview-stats">
        <Stat label={t('overview.balance')} value={formatQuota(profile.quota)} testId="balance" />
        <Stat label={t('overview.used')} value={formatQuota(profile.used_quota)} testId="used-quota" />
        <Stat label={t('overview.requests')} value={String(profile.request_count)} testId="request-count" />
      </div>
    </Card>
  );
}

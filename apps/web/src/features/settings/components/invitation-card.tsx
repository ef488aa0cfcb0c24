import { Button, Card, Input, Typography } from '@douyinfe/semi-ui';
import { IconCopy, IconGift } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import { useQuotaFormatter } from '../../../lib/quota';
import type { SelfProfile } from '../api';
import { useAffCode } from '../queries';
import { AffTransferModal } from './aff-transfer-modal';

/** Spec 01 §2: the link is built as /register?aff={code} on this console's own origin. */
export function invitationLink(code: string): string {
  return `${window.location.origin}/register?aff=${encodeURIComponent(code)}`;
}

export function InvitationCard({ profile }: { profile: SelfProfile }) {
  const { t } = useTranslation('settings');
  const formatQuota = useQuotaFormatter();
  const affCode = useAffCode();
  const [transferOpen, setTransferOpen] = useState(false);

  const link = affCode.data ? invitationLink(affCode.data) : '';

  return (
    <Card
      className="mg-settings-card"
      title={
        <span className="mg-card-title">
          <IconGift /> {t('invite.title')}
        </span>
      }
    >
      <Typography.Paragraph type="tertiary" className="mg-card-description">
        {t('invite.description')}
      </Typography.Paragraph>
      <div className="mg-invite-stats">
        <div className="mg-stat">
          <Typography.Text type="tertiary" size="small">
            {t('invite.pending')}
          </Typography.Text>
          <Typography.Title heading={5} data-testid="aff-quota">
            {formatQuota(profile.aff_quota)}
          </Typography.Title>
        </div>
        <div className="mg-stat">
          <Typography.Text type="tertiary" size="small">
            {t('invite.total')}
          </Typography.Text>
          <Typography.Title heading={5}>{formatQuota(profile.aff_history_quota)}</Typography.Title>
        </div>
        <div className="mg-stat">
          <Typography.Text type="tertiary" size="small">
            {t('invite.count')}
          </Typography.Text>
          <Typography.Title heading={5}>{profile.aff_count}</Typography.Title>
        </div>
      </div>
      <Typography.Text strong size="small">
        {t('invite.link')}
      </Typography.Text>
      <div className="mg-copy-row">
        <Input
          readonly
          value={link}
          placeholder={affCode.isPending ? t('invite.loading') : ''}
          aria-label={t('invite.link')}
          data-testid="invite-link"
          className="mg-mono"
        />
        <Button icon={<IconCopy />} disabled={!link} onClick={() => void copyWithFeedback(link)}>
          {t('invite.copyLink')}
        </Button>
      </div>
      <Button className="mg-invite-transfer" theme="light" type="primary" disabled={profile.aff_quota <= 0} onClick={() => setTransferOpen(true)}>
        {t('invite.transfer')}
      </Button>
      <AffTransferModal visible={transferOpen} available={profile.aff_quota} onClose={() => setTransferOpen(false)} />
    </Card>
  );
}

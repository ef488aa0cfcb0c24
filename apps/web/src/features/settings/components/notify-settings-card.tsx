import { Button, Card, Checkbox, Input, InputNumber, Radio, RadioGroup, Toast, Typography } from '@douyinfe/semi-ui';
import { IconBell } from '@douyinfe/semi-icons';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatQuota, quotaPerUnit } from '../../../lib/quota';
import { useStatus } from '../../status/queries';
import { saveNotifySettings, type SelfProfile } from '../api';
import { notifyProblem, parseNotifySettings, quotaToThreshold, thresholdToQuota, type NotifySettingsUpdate, type NotifyType } from '../notify-settings';
import { useRefreshSelf } from '../queries';

/**
 * The user's own settings (new-api's notification settings): the quota warning by mail or by
 * webhook and below which balance, plus accepting unpriced models and recording request IPs; saved
 * with PUT /api/user/setting. The threshold is typed in dollars when the site shows money.
 */
export function NotifySettingsCard({ profile }: { profile: SelfProfile & { setting?: string } }) {
  const { t } = useTranslation('settings-notify');
  const status = useStatus();
  const refreshSelf = useRefreshSelf();
  const inCurrency = Boolean(status.display_in_currency);
  const perUnit = quotaPerUnit(status);
  const stored = useMemo(() => parseNotifySettings(profile.setting), [profile.setting]);

  const [notifyType, setNotifyType] = useState<NotifyType>(stored.notifyType);
  const [threshold, setThreshold] = useState<number | undefined>(quotaToThreshold(stored.threshold, inCurrency, perUnit));
  const [webhookUrl, setWebhookUrl] = useState(stored.webhookUrl);
  const [webhookSecret, setWebhookSecret] = useState('');
  const [clearSecret, setClearSecret] = useState(false);
  const [notificationEmail, setNotificationEmail] = useState(stored.notificationEmail);
  const [acceptUnpriced, setAcceptUnpriced] = useState(stored.acceptUnsetModelRatioModel);
  const [recordIp, setRecordIp] = useState(stored.recordIpLog);
  const [saving, setSaving] = useState(false);

  // A save (or another tab) changed what is stored: show it.
  useEffect(() => {
    setNotifyType(stored.notifyType);
    setThreshold(quotaToThreshold(stored.threshold, inCurrency, perUnit));
    setWebhookUrl(stored.webhookUrl);
    setNotificationEmail(stored.notificationEmail);
    setAcceptUnpriced(stored.acceptUnsetModelRatioModel);
    setRecordIp(stored.recordIpLog);
    setWebhookSecret('');
    setClearSecret(false);
  }, [stored, inCurrency, perUnit]);

  const thresholdQuota = thresholdToQuota(threshold, inCurrency, perUnit);

  const save = async () => {
    const problem = notifyProblem({ notifyType, threshold, webhookUrl, notificationEmail });
    if (problem) {
      Toast.warning(t(`problems.${problem}`));
      return;
    }
    const update: NotifySettingsUpdate = {
      notify_type: notifyType,
      quota_warning_threshold: thresholdQuota,
      webhook_url: notifyType === 'webhook' ? webhookUrl.trim() : '',
      notification_email: notifyType === 'email' ? notificationEmail.trim() : '',
      accept_unset_model_ratio_model: acceptUnpriced,
      record_ip_log: recordIp,
    };
    if (notifyType === 'webhook') {
      if (clearSecret) update.webhook_secret = null;
      else if (webhookSecret !== '') update.webhook_secret = webhookSecret;
    }
    setSaving(true);
    try {
      await saveNotifySettings(update);
      Toast.success(t('saved'));
      await refreshSelf();
    } catch {
      /* the API client showed the server's reason */
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card
      className="mg-settings-card"
      data-testid="notify-settings"
      title={
        <span className="mg-card-title">
          <IconBell /> {t('title')}
        </span>
      }
    >
      <Typography.Paragraph type="tertiary" className="mg-card-description">
        {t('description')}
      </Typography.Paragraph>
      <div className="mg-modal-fields">
        <span className="mg-field-label">{t('type')}</span>
        <RadioGroup value={notifyType} onChange={(event) => setNotifyType(event.target.value as NotifyType)} aria-label={t('type')}>
          <Radio value="email">{t('types.email')}</Radio>
          <Radio value="webhook">{t('types.webhook')}</Radio>
        </RadioGroup>

        <label className="mg-field-label" htmlFor="mg-notify-threshold">
          {inCurrency ? t('thresholdCurrency') : t('thresholdQuota')}
        </label>
        <InputNumber
          id="mg-notify-threshold"
          value={threshold}
          onChange={(value) => setThreshold(typeof value === 'number' ? value : undefined)}
          min={0}
          precision={inCurrency ? 2 : 0}
          prefix={inCurrency ? '$' : undefined}
          placeholder={t('thresholdPlaceholder')}
          style={{ width: '100%' }}
        />
        <Typography.Text type="tertiary" size="small" data-testid="notify-threshold-hint">
          {thresholdQuota > 0
            ? t(inCurrency ? 'thresholdHintCurrency' : 'thresholdHintQuota', {
                quota: thresholdQuota,
                amount: formatQuota(thresholdQuota, { ...status, display_in_currency: !inCurrency }),
              })
            : t('thresholdDefault')}
        </Typography.Text>

        {notifyType === 'email' ? (
          <>
            <label className="mg-field-label" htmlFor="mg-notify-email">
              {t('email')}
            </label>
            <Input
              id="mg-notify-email"
              value={notificationEmail}
              onChange={setNotificationEmail}
              placeholder={profile.email ? t('emailPlaceholder', { email: profile.email }) : t('emailPlaceholderNone')}
            />
            <Typography.Text type="tertiary" size="small">
              {t('emailHint')}
            </Typography.Text>
          </>
        ) : (
          <>
            <label className="mg-field-label" htmlFor="mg-notify-webhook">
              {t('webhookUrl')}
            </label>
            <Input id="mg-notify-webhook" value={webhookUrl} onChange={setWebhookUrl} placeholder="https://example.com/webhook" />
            <label className="mg-field-label" htmlFor="mg-notify-secret">
              {t('webhookSecret')}
            </label>
            <Input
              id="mg-notify-secret"
              mode="password"
              value={webhookSecret}
              onChange={setWebhookSecret}
              disabled={clearSecret}
              placeholder={stored.secretSet ? t('secretKept') : t('secretPlaceholder')}
            />
            {stored.secretSet && (
              <Checkbox checked={clearSecret} onChange={(event) => setClearSecret(Boolean(event.target.checked))}>
                {t('secretClear')}
              </Checkbox>
            )}
            <Typography.Text type="tertiary" size="small">
              {t('webhookHint')}
            </Typography.Text>
          </>
        )}
        <span className="mg-field-label">{t('other')}</span>
        <Checkbox checked={acceptUnpriced} onChange={(event) => setAcceptUnpriced(Boolean(event.target.checked))}>
          {t('acceptUnpriced')}
        </Checkbox>
        <Typography.Text type="tertiary" size="small">
          {t('acceptUnpricedHint')}
        </Typography.Text>
        <Checkbox checked={recordIp} onChange={(event) => setRecordIp(Boolean(event.target.checked))}>
          {t('recordIp')}
        </Checkbox>
        <Typography.Text type="tertiary" size="small">
          {t('recordIpHint')}
        </Typography.Text>
        <div>
          <Button theme="solid" type="primary" loading={saving} onClick={() => void save()}>
            {t('save')}
          </Button>
        </div>
      </div>
    </Card>
  );
}

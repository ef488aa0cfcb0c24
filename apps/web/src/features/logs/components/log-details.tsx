import { Descriptions } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { quotaPerUnit, useQuotaFormatter } from '../../../lib/quota';
import { useStatus } from '../../status/queries';
import type { LogEntry } from '../api';
import { billingFormula, describeLog, parseOther } from '../log-rules';

/** The expanded row: the prices the relay charged with (`other`) and the charge worked out. */
export function LogDetails({ row }: { row: LogEntry }) {
  const { t } = useTranslation('logs');
  const status = useStatus();
  const formatQuota = useQuotaFormatter();
  const details = parseOther(row.other);
  const fixed = details.modelPrice !== undefined && details.modelPrice >= 0;
  const formula = billingFormula(details, row, quotaPerUnit(status));
  const items: { key: string; value: string }[] = [];
  if (fixed) items.push({ key: t('details.modelPrice'), value: String(details.modelPrice) });
  else if (details.modelRatio !== undefined) {
    items.push({ key: t('details.modelRatio'), value: String(details.modelRatio) });
    items.push({ key: t('details.completionRatio'), value: String(details.completionRatio ?? 1) });
    if (details.cacheTokens) {
      items.push({ key: t('details.cacheTokens'), value: String(details.cacheTokens) });
      items.push({ key: t('details.cacheRatio'), value: String(details.cacheRatio ?? 1) });
    }
    if (details.cacheCreationTokens) {
      items.push({ key: t('details.cacheCreationTokens'), value: String(details.cacheCreationTokens) });
      items.push({ key: t('details.cacheCreationRatio'), value: String(details.cacheCreationRatio ?? 1.25) });
    }
  }
  if (details.groupRatio !== undefined) items.push({ key: t('details.groupRatio'), value: String(details.groupRatio) });
  if (formula) items.push({ key: t('details.formula'), value: formula });
  if (details.upstreamModel) items.push({ key: t('details.upstreamModel'), value: details.upstreamModel });
  if (formula) {
    items.push({ key: t('details.stream'), value: row.is_stream ? t('details.yes') : t('details.no') });
    items.push({ key: t('details.frt'), value: details.frt ? `${details.frt} ms` : t('details.notMeasured') });
  }
  items.push({ key: t('details.content'), value: describeLog(row, t, formatQuota) });
  return (
    <div className="mg-log-details" data-testid={`log-details-${row.id}`}>
      <Descriptions data={items} />
    </div>
  );
}

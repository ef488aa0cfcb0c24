import { Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import type { AuditEntry } from '../api';
import { changedFields, showValue } from '../audit-rules';

/** The before/after of each field a row recorded, side by side, and the action's parameters. */
export function AuditDetails({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation('audit');
  const fields = changedFields(entry);
  const params = Object.entries(entry.details.params ?? {});
  if (fields.length === 0 && params.length === 0) {
    return <Typography.Text type="tertiary">{t('details.none')}</Typography.Text>;
  }
  return (
    <div className="mg-audit-details" data-testid={`audit-details-${entry.id}`}>
      {fields.length > 0 && (
        <table className="mg-audit-diff">
          <thead>
            <tr>
              <th>{t('details.field')}</th>
              <th>{t('details.before')}</th>
              <th>{t('details.after')}</th>
            </tr>
          </thead>
          <tbody>
            {fields.map((change) => (
              <tr key={change.field} data-testid={`audit-diff-${change.field}`}>
                <td>
                  <code>{change.field}</code>
                </td>
                <td className="mg-audit-before">{showValue(t, change.before)}</td>
                <td className="mg-audit-after">{showValue(t, change.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {params.length > 0 && (
        <div className="mg-audit-params">
          <Typography.Text strong>{t('details.params')}</Typography.Text>
          {params.map(([name, value]) => (
            <div key={name}>
              <code>{name}</code>: {showValue(t, value)}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

import { IconPause } from '@douyinfe/semi-icons';
import { Button, Empty, Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSessionRoles } from '../../lib/session';
import type { StatusFlag } from '../status/types';

/** Where each screen's switch lives: a card of 设置 → 运营设置 and the switch's own name there. */
const SWITCHES: Record<
  StatusFlag,
  { feature: 'task' | 'drawing' | 'dashboard'; card: 'drawing' | 'dashboard'; option: 'TaskEnabled' | 'DrawingEnabled' | 'DataExportEnabled' }
> = {
  enable_task: { feature: 'task', card: 'drawing', option: 'TaskEnabled' },
  enable_drawing: { feature: 'drawing', card: 'drawing', option: 'DrawingEnabled' },
  enable_data_export: { feature: 'dashboard', card: 'dashboard', option: 'DataExportEnabled' },
};

/**
 * A screen whose status switch is off: says so instead of "page not found", and tells
 * administrators where the switch is (the super administrator also gets a link to it).
 */
export default function FeatureOffPage({ flag }: { flag: StatusFlag }) {
  const { t } = useTranslation(['not-found', 'settings', 'settings-operation', 'common']);
  const { admin, root } = useSessionRoles();
  const { feature, card, option } = SWITCHES[flag];
  return (
    <div className="mg-centered-page" data-testid="feature-off">
      <Empty image={<IconPause className="mg-feature-off-icon" />} title={t('not-found:off.title')} description={t(`not-found:off.${feature}`)}>
        {admin && (
          <Typography.Paragraph type="tertiary" className="mg-feature-off-where" data-testid="feature-off-where">
            {t('not-found:off.where', {
              tab: t('settings:tabs.operation'),
              card: t(`settings-operation:cards.${card}.title`),
              option: t(`settings-operation:fields.${option}.label`),
            })}
          </Typography.Paragraph>
        )}
        {root ? (
          <Link to="/setting?tab=operation">
            <Button theme="solid" type="primary">
              {t('not-found:off.openSettings')}
            </Button>
          </Link>
        ) : (
          <Link to="/">
            <Button theme="solid" type="primary">
              {t('common:actions.backHome')}
            </Button>
          </Link>
        )}
      </Empty>
    </div>
  );
}

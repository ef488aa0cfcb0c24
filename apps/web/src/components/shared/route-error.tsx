import { Button, Empty } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/** Shown when a page throws or its chunk fails to load (typically after a redeploy changed the file names). */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  if (import.meta.env.DEV) console.error(error);
  return (
    <div className="mg-centered-page">
      <Empty title={t('pageError.title')} description={t('pageError.description')}>
        <Button theme="solid" type="primary" onClick={() => window.location.reload()}>
          {t('actions.reload')}
        </Button>
      </Empty>
    </div>
  );
}

import { Spin } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';

export function PageLoading() {
  const { t } = useTranslation();
  return (
    <div className="mg-page-loading" role="status" aria-live="polite">
      <Spin size="large" tip={t('loading')} />
    </div>
  );
}

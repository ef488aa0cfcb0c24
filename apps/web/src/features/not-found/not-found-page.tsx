import { Button, Empty } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { LostIllustration } from './components/lost-illustration';

export default function NotFoundPage() {
  const { t } = useTranslation(['not-found', 'common']);
  return (
    <div className="mg-centered-page">
      <Empty image={<LostIllustration />} title={t('not-found:title')} description={t('not-found:hint')}>
        <Link to="/">
          <Button theme="solid" type="primary">
            {t('common:actions.backHome')}
          </Button>
        </Link>
      </Empty>
    </div>
  );
}

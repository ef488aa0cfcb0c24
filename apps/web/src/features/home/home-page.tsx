import { useTranslation } from 'react-i18next';
import { PageLoading } from '../../components/shared/page-loading';
import { RichContent } from '../../components/shared/rich-content';
import { useStatus } from '../status/queries';
import { DefaultHome } from './components/default-home';
import { NoticeModal } from './components/notice-modal';
import { useHomePageContent } from './queries';

export default function HomePage() {
  const { t } = useTranslation('layout');
  const status = useStatus();
  const content = useHomePageContent();

  if (content.isPending) return <PageLoading />;
  const source = content.data?.trim() ?? '';
  return (
    <>
      {source ? <RichContent source={source} title={status.system_name || t('nav.home')} /> : <DefaultHome />}
      <NoticeModal />
    </>
  );
}

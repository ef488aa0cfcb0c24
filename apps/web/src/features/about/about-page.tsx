import { Card, Typography } from '@douyinfe/semi-ui';
import { IconGithubLogo } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { PageLoading } from '../../components/shared/page-loading';
import { RichContent } from '../../components/shared/rich-content';
import { useSystemName } from '../status/queries';
import { useAbout } from './queries';
import { PROJECT_URL } from '../../lib/project';

export default function AboutPage() {
  const { t } = useTranslation('about');
  const about = useAbout();
  const systemName = useSystemName();

  if (about.isPending) return <PageLoading />;
  const source = about.data?.trim() ?? '';
  if (source) return <RichContent source={source} title={t('title')} />;

  return (
    <div className="mg-page mg-about">
      <Card bordered className="mg-about-card">
        <Typography.Title heading={2}>{t('heading', { name: systemName })}</Typography.Title>
        <Typography.Paragraph className="mg-about-lead">{t('body', { name: systemName })}</Typography.Paragraph>
        <Typography.Paragraph type="tertiary">{t('customize')}</Typography.Paragraph>
        <Typography.Paragraph type="tertiary">{t('license')}</Typography.Paragraph>
        <a href={PROJECT_URL} target="_blank" rel="noreferrer" className="mg-about-link">
          <IconGithubLogo /> {t('project')}: {PROJECT_URL}
        </a>
      </Card>
    </div>
  );
}

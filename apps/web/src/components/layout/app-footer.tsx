import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../features/status/queries';
import { sanitizeHtml } from '../../lib/markdown';
import { PROJECT_URL } from '../../lib/project';

/** The admin's Footer option replaces the default line entirely (spec 02 §1). */
export function AppFooter() {
  const { t } = useTranslation('layout');
  const status = useStatus();
  const customHtml = useMemo(() => (status.footer_html ? sanitizeHtml(status.footer_html) : ''), [status.footer_html]);

  if (customHtml) {
    return <div className="mg-footer mg-footer-custom" dangerouslySetInnerHTML={{ __html: customHtml }} />;
  }
  return (
    <div className="mg-footer" data-testid="default-footer">
      <span>modelgate{status.version ? ` ${t('footer.version', { version: status.version.replace(/^v/, '') })}` : ''}</span>
      <span aria-hidden="true">·</span>
      <span>{t('footer.tagline')}</span>
      <span aria-hidden="true">·</span>
      <a href={PROJECT_URL} target="_blank" rel="noreferrer">
        {t('footer.project')}
      </a>
    </div>
  );
}

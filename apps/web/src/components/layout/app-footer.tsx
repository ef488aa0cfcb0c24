import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus, useSystemName } from '../../features/status/queries';
import { renderAdminHtml } from '../../lib/markdown';
import { PROJECT_URL } from '../../lib/project';

interface FooterContentProps {
  /** The admin's Footer option (HTML); empty means the default line. */
  html: string;
}

/**
 * The footer's content: the admin's Footer HTML replaces the default line entirely (spec 02 §1),
 * as written (lib/markdown.ts says why). The Other settings tab previews a draft with it.
 */
export function FooterContent({ html }: FooterContentProps) {
  const { t } = useTranslation('layout');
  const status = useStatus();
  const systemName = useSystemName();
  const customHtml = useMemo(() => (html.trim() ? renderAdminHtml(html) : ''), [html]);

  if (customHtml) {
    return <div className="mg-footer mg-footer-custom" data-testid="custom-footer" dangerouslySetInnerHTML={{ __html: customHtml }} />;
  }
  return (
    <div className="mg-footer" data-testid="default-footer">
      <span>
        {systemName}
        {status.version ? ` ${t('footer.version', { version: status.version.replace(/^v/, '') })}` : ''}
      </span>
      <span aria-hidden="true">·</span>
      <span>{t('footer.tagline')}</span>
      <span aria-hidden="true">·</span>
      <a href={PROJECT_URL} target="_blank" rel="noreferrer">
        {t('footer.project')}
      </a>
    </div>
  );
}

export function AppFooter() {
  const status = useStatus();
  return <FooterContent html={status.footer_html ?? ''} />;
}

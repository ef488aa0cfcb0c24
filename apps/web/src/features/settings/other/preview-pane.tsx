import { Typography } from '@douyinfe/semi-ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface PreviewPaneProps {
  /** Tags beside the title, e.g. how the content will be shown. */
  extra?: ReactNode;
  testId: string;
  /** On the pane, e.g. to place it below a field. */
  className?: string;
  /** On the rendered content's box, e.g. the public page's own wrapper class. */
  bodyClassName?: string;
  children: ReactNode;
}

/** The live preview beside an editor: what the public page will show for the typed, unsaved text. */
export function PreviewPane({ extra, testId, className, bodyClassName, children }: PreviewPaneProps) {
  const { t } = useTranslation('settings-other');
  return (
    <section className={`mg-other-preview ${className ?? ''}`} aria-label={t('preview')}>
      <header className="mg-other-preview-header">
        <Typography.Text strong>{t('preview')}</Typography.Text>
        <span className="mg-other-preview-extra">{extra}</span>
      </header>
      <div className={`mg-other-preview-body ${bodyClassName ?? ''}`} data-testid={testId}>
        {children}
      </div>
      <Typography.Text type="tertiary" size="small" className="mg-other-preview-hint">
        {t('previewHint')}
      </Typography.Text>
    </section>
  );
}

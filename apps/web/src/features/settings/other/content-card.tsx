import { Banner, Tag, TextArea, Typography } from '@douyinfe/semi-ui';
import type { QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../../components/shared/rich-content';
import { embeddableUrl } from '../../../lib/markdown';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { DiscardButton } from './discard-button';
import { contentKind, isPlainHttpAddress, type ContentKind } from './other-rules';
import { PreviewPane } from './preview-pane';
import { useRefreshingCard } from './use-refreshing-card';

const KIND_COLOURS: Record<ContentKind, 'grey' | 'blue' | 'green'> = { default: 'grey', embed: 'blue', markdown: 'green' };

interface ContentCardProps {
  /** HomePageContent or About: Markdown & HTML, or an https address shown in an iframe. */
  optionKey: 'HomePageContent' | 'About';
  /** Its texts in the settings-other namespace: homePage or about. */
  textKey: 'homePage' | 'about';
  icon: ReactNode;
  /** The public page's query, refreshed after a save. */
  pageQueryKey: QueryKey;
  testId: string;
}

/** One public page's content with a live preview rendered exactly as that page renders it. */
export function ContentCard({ optionKey, textKey, icon, pageQueryKey, testId }: ContentCardProps) {
  const { t } = useTranslation('settings-other');
  const keys = optionKey === 'HomePageContent' ? HOME_KEYS : ABOUT_KEYS;
  const card = useRefreshingCard(useOptionCard(keys), pageQueryKey);
  const source = card.value(optionKey);
  const kind = contentKind(source);
  const url = embeddableUrl(source);

  return (
    <OptionCardFrame
      card={card}
      title={t(`${textKey}.title`)}
      icon={icon}
      description={t(`${textKey}.description`)}
      actions={<DiscardButton card={card} />}
      testId={testId}
    >
      <div className="mg-other-editor">
        <div className="mg-other-input">
          <TextArea
            value={source}
            onChange={(value) => card.set(optionKey, value)}
            placeholder={t(`${textKey}.placeholder`)}
            aria-label={t(`${textKey}.title`)}
            autosize={{ minRows: 10, maxRows: 24 }}
            className="mg-mono"
            data-testid={`${testId}-input`}
          />
          {isPlainHttpAddress(source) && <Banner type="warning" fullMode={false} closeIcon={null} description={t('httpWarning')} />}
          {kind === 'markdown' && (
            <Typography.Text type="tertiary" size="small">
              {t('htmlAsWritten')}
            </Typography.Text>
          )}
        </div>
        <PreviewPane
          testId={`${testId}-preview`}
          bodyClassName="mg-other-page-preview"
          extra={
            <Tag color={KIND_COLOURS[kind]} data-testid={`${testId}-kind`}>
              {t(`kind.${kind}`)}
            </Tag>
          }
        >
          {kind === 'default' ? (
            <Typography.Text type="tertiary">{t(`${textKey}.defaultHint`)}</Typography.Text>
          ) : (
            <>
              {url && (
                <Typography.Text type="tertiary" size="small" className="mg-other-embed-hint">
                  {t('embedHint', { url })}
                </Typography.Text>
              )}
              {/* The home and about pages render the trimmed option; so does the preview. */}
              <RichContent source={source.trim()} title={t(`${textKey}.title`)} />
            </>
          )}
        </PreviewPane>
      </div>
    </OptionCardFrame>
  );
}

const HOME_KEYS = ['HomePageContent'] as const;
const ABOUT_KEYS = ['About'] as const;

import { TextArea, Typography } from '@douyinfe/semi-ui';
import { IconCode } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { FooterContent } from '../../../components/layout/app-footer';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { DiscardButton } from './discard-button';
import { PreviewPane } from './preview-pane';

const KEYS = ['Footer'] as const;

/** Footer: HTML shown as written at the bottom of every page; empty brings the default line back. */
export function FooterCard() {
  const { t } = useTranslation('settings-other');
  const card = useOptionCard(KEYS);
  const footer = card.value('Footer');

  return (
    <OptionCardFrame
      card={card}
      title={t('footer.title')}
      icon={<IconCode />}
      description={t('footer.description')}
      actions={<DiscardButton card={card} />}
      testId="other-footer"
    >
      <TextArea
        value={footer}
        onChange={(value) => card.set('Footer', value)}
        placeholder={t('footer.placeholder')}
        aria-label={t('footer.title')}
        autosize={{ minRows: 3, maxRows: 10 }}
        className="mg-mono"
        data-testid="other-footer-input"
      />
      <PreviewPane testId="other-footer-preview" className="mg-other-below" bodyClassName="mg-other-footer-preview">
        {!footer.trim() && (
          <Typography.Text type="tertiary" size="small" className="mg-other-field-hint">
            {t('footer.defaultHint')}
          </Typography.Text>
        )}
        <div className="mg-footer-bar">
          <FooterContent html={footer} />
        </div>
      </PreviewPane>
    </OptionCardFrame>
  );
}

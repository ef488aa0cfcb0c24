import { Button, TextArea, Typography } from '@douyinfe/semi-ui';
import { IconBell } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../../components/shared/rich-content';
import { NoticeDialog } from '../../home/components/notice-modal';
import { homeKeys } from '../../home/queries';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { DiscardButton } from './discard-button';
import { PreviewPane } from './preview-pane';
import { useRefreshingCard } from './use-refreshing-card';

const KEYS = ['Notice'] as const;

/** The Notice option: Markdown & HTML, popped up on the home page once per change of its text. */
export function NoticeCard() {
  const { t } = useTranslation('settings-other');
  const card = useRefreshingCard(useOptionCard(KEYS), homeKeys.notice);
  const [dialogOpen, setDialogOpen] = useState(false);
  const notice = card.value('Notice');
  const empty = !notice.trim();

  return (
    <OptionCardFrame
      card={card}
      title={t('notice.title')}
      icon={<IconBell />}
      description={t('notice.description')}
      actions={
        <>
          <Button onClick={() => setDialogOpen(true)} disabled={empty} data-testid="other-notice-open-preview">
            {t('notice.previewModal')}
          </Button>
          <DiscardButton card={card} />
        </>
      }
      testId="other-notice"
    >
      <div className="mg-other-editor">
        <div className="mg-other-input">
          <TextArea
            value={notice}
            onChange={(value) => card.set('Notice', value)}
            placeholder={t('notice.placeholder')}
            aria-label={t('notice.title')}
            autosize={{ minRows: 6, maxRows: 16 }}
            className="mg-mono"
            data-testid="other-notice-input"
          />
        </div>
        <PreviewPane testId="other-notice-preview" bodyClassName="mg-notice-body">
          {empty ? (
            <Typography.Text type="tertiary">{t('notice.empty')}</Typography.Text>
          ) : (
            <RichContent source={notice} title={t('notice.title')} embed={false} />
          )}
        </PreviewPane>
      </div>
      {!empty && <NoticeDialog notice={notice} visible={dialogOpen} onClose={() => setDialogOpen(false)} />}
    </OptionCardFrame>
  );
}

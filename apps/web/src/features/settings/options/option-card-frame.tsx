import { Button, Card, Empty, Spin, Typography } from '@douyinfe/semi-ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { OptionCard } from './use-option-card';

interface OptionCardFrameProps {
  card: OptionCard;
  title: ReactNode;
  icon?: ReactNode;
  description?: ReactNode;
  /** Shown beside the save button (e.g. a reset or test action). */
  actions?: ReactNode;
  /** Cards that save on their own (e.g. a table that writes each row) leave the button out. */
  hideSave?: boolean;
  testId?: string;
  children: ReactNode;
}

/** The frame of every admin settings card: title, loading and error states, and its save button. */
export function OptionCardFrame({ card, title, icon, description, actions, hideSave, testId, children }: OptionCardFrameProps) {
  const { t } = useTranslation(['settings', 'common']);
  let body: ReactNode;
  if (card.loading) {
    body = (
      <div className="mg-settings-loading">
        <Spin />
      </div>
    );
  } else if (card.error) {
    body = <Empty description={t('options.loadFailed')} />;
  } else {
    body = (
      <>
        {children}
        {(!hideSave || actions) && (
          <div className="mg-option-actions">
            {!hideSave && (
              <Button type="primary" theme="solid" loading={card.saving} onClick={() => void card.save()}>
                {t('options.save')}
              </Button>
            )}
            {actions}
          </div>
        )}
      </>
    );
  }
  return (
    <Card
      className="mg-settings-card mg-option-card"
      data-testid={testId}
      title={
        <span className="mg-card-title">
          {icon} {title}
        </span>
      }
    >
      {description && (
        <Typography.Paragraph type="tertiary" className="mg-card-description">
          {description}
        </Typography.Paragraph>
      )}
      {body}
    </Card>
  );
}

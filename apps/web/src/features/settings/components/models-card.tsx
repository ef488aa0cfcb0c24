import { Button, Card, Empty, Spin, Tag, Typography } from '@douyinfe/semi-ui';
import { IconLayers } from '@douyinfe/semi-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import { useUserModels } from '../queries';

/** Spec 01 §9: the first 10 model tags are shown, the rest behind a toggle. */
export const VISIBLE_MODEL_COUNT = 10;

export function ModelsCard() {
  const { t } = useTranslation('settings');
  const models = useUserModels();
  const [expanded, setExpanded] = useState(false);

  const names = models.data ?? [];
  const shown = expanded ? names : names.slice(0, VISIBLE_MODEL_COUNT);

  let body;
  if (models.isPending) {
    body = <Spin />;
  } else if (models.isError) {
    body = <Empty description={t('models.loadFailed')} />;
  } else if (names.length === 0) {
    body = <Empty description={t('models.empty')} />;
  } else {
    body = (
      <>
        <div className="mg-model-tags" data-testid="model-tags">
          {shown.map((name) => (
            <Tag key={name} size="large" color="white" className="mg-model-tag" onClick={() => void copyWithFeedback(name)}>
              {name}
            </Tag>
          ))}
        </div>
        {names.length > VISIBLE_MODEL_COUNT && (
          <Button theme="borderless" size="small" className="mg-models-toggle" onClick={() => setExpanded((value) => !value)}>
            {expanded ? t('models.showLess') : t('models.showMore', { count: names.length })}
          </Button>
        )}
      </>
    );
  }

  return (
    <Card
      className="mg-settings-card"
      title={
        <span className="mg-card-title">
          <IconLayers /> {t('models.title')}
        </span>
      }
    >
      <Typography.Paragraph type="tertiary" className="mg-card-description">
        {t('models.description')}
      </Typography.Paragraph>
      {body}
    </Card>
  );
}

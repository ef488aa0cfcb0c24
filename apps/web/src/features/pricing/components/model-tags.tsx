import { Tag, Tooltip } from '@douyinfe/semi-ui';
import type { TFunction } from 'i18next';
import type { PricedModel } from '../api';
import { tagLabel } from '../pricing-labels';
import { tagsOf } from '../pricing-rules';

/** Whether the signed-in user's group may call the model (nobody is marked when signed out). */
export const unusableFor = (model: PricedModel, userGroup: string | undefined) => userGroup !== undefined && !model.enable_groups.includes(userGroup);

/** A model's tags and, when the user's group may not call it, the red 不可用 mark: the table's and the card's. */
export function ModelTags({ model, userGroup, t }: { model: PricedModel; userGroup: string | undefined; t: TFunction<'pricing'> }) {
  return (
    <>
      {tagsOf(model).map((tag) => (
        <Tag key={tag} size="small" color="light-blue">
          {tagLabel(t, tag)}
        </Tag>
      ))}
      {unusableFor(model, userGroup) && (
        <Tooltip content={t('unusable.tooltip', { group: userGroup })}>
          <Tag color="red" size="small" data-testid="pricing-unusable">
            {t('unusable.tag')}
          </Tag>
        </Tooltip>
      )}
    </>
  );
}

import { IconUserGroup } from '@douyinfe/semi-icons';
import { Tag, Typography } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import type { OptionValues } from '../options/options-api';
import { OptionCardFrame } from '../options/option-card-frame';
import { useOptionCard } from '../options/use-option-card';
import { OptionTextAreaField } from './option-fields';
import { groupDescriptionsIssue, groupRatioEntries, ratioMapIssue, type JsonShapeIssue } from './operation-rules';

const KEYS = ['GroupRatio', 'UserUsableGroups', 'TopupGroupRatio'] as const;
type GroupKey = (typeof KEYS)[number];

const SHAPE_CHECKS: Record<GroupKey, (text: string) => JsonShapeIssue | null> = {
  GroupRatio: ratioMapIssue,
  UserUsableGroups: groupDescriptionsIssue,
  TopupGroupRatio: ratioMapIssue,
};

/** 分组倍率设置: GroupRatio, UserUsableGroups and TopupGroupRatio, with the ratios as coloured tags (§9). */
export function GroupRatioCard() {
  const { t } = useTranslation('settings-operation');
  // Spec 01 §5: "{分组倍率 / 用户可选分组 / 充值分组倍率}不是合法的 JSON 字符串".
  const jsonNames = Object.fromEntries(KEYS.map((key) => [key, t(`fields.${key}.label`)])) as Record<GroupKey, string>;
  const validate = (values: OptionValues) => {
    for (const key of KEYS) {
      const issue = SHAPE_CHECKS[key](values[key] ?? '');
      if (issue) return t(`json.${issue.problem}`, { name: jsonNames[key], entry: issue.entry });
    }
    return null;
  };
  const card = useOptionCard(KEYS, { validate, jsonNames });
  const ratios = groupRatioEntries(card.value('GroupRatio'));
  return (
    <OptionCardFrame card={card} title={t('cards.groups.title')} icon={<IconUserGroup />} description={t('cards.groups.description')} testId="op-card-groups">
      <div className="mg-op-readout" data-testid="op-group-ratio-tags">
        <span className="mg-op-readout-label">{t('groups.current')}</span>
        {ratios === null ? (
          <Typography.Text type="warning" size="small">
            {t('groups.unreadable')}
          </Typography.Text>
        ) : ratios.length === 0 ? (
          <Typography.Text type="tertiary" size="small">
            {t('groups.none')}
          </Typography.Text>
        ) : (
          ratios.map(({ group, ratio, colour }) => (
            <Tag key={group} color={colour} size="large" data-testid={`op-group-tag-${group}`} data-colour={colour}>
              {group} × {ratio}
            </Tag>
          ))
        )}
      </div>
      <div className="mg-option-grid mg-op-json-grid">
        {KEYS.map((key) => (
          <OptionTextAreaField key={key} card={card} optionKey={key} json={{ name: jsonNames[key] }} />
        ))}
      </div>
    </OptionCardFrame>
  );
}

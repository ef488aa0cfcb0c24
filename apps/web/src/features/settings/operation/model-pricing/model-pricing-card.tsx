import { Banner, Button, Popconfirm, TabPane, Tabs, Toast } from '@douyinfe/semi-ui';
import { IconPriceTag, IconRefresh } from '@douyinfe/semi-icons';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { OptionCardFrame } from '../../options/option-card-frame';
import { resetModelRatios, type OptionValues } from '../../options/options-api';
import { optionKeys, useOptionCard, useOptions } from '../../options/use-option-card';
import { ModelPricingJson } from './model-pricing-json';
import { ModelPricingTable } from './model-pricing-table';
import {
  deleteRow,
  nextOptionText,
  parsePriceMap,
  PRICING_KEYS,
  rowsFromMaps,
  upsertRow,
  type MapProblem,
  type PricingKey,
  type PricingMaps,
} from './model-pricing-rules';
import './model-pricing.css';

type EditorTab = 'json' | 'visual';

/**
 * Model ratios (spec 01 §2): ModelPrice, ModelRatio, CompletionRatio, CacheRatio and CreateCacheRatio, edited as JSON or in a
 * table. Both tabs edit one draft (the card's), so what is typed in one is seen in the other before
 * saving, and one save writes the changed options key by key with the §7 messages.
 */
export function ModelPricingCard() {
  const { t } = useTranslation(['settings-model-pricing', 'settings']);
  const queryClient = useQueryClient();
  const stored = useOptions().data;
  const [tab, setTab] = useState<EditorTab>('json');
  const [resetting, setResetting] = useState(false);

  const jsonNames = useMemo(() => Object.fromEntries(PRICING_KEYS.map((key) => [key, t(`names.${key}`)])) as Record<PricingKey, string>, [t]);
  const describe = useCallback(
    (key: PricingKey, problem: MapProblem): string => {
      const name = jsonNames[key];
      if (problem.kind === 'json') return t('settings:options.invalidJson', { name });
      if (problem.kind === 'shape') return t('errors.shape', { name });
      return t('errors.value', { name, model: problem.model });
    },
    [jsonNames, t],
  );
  // Syntax is checked by the card (jsonNames); the server also wants an object of non-negative numbers.
  const validate = useCallback(
    (values: OptionValues): string | null => {
      for (const key of PRICING_KEYS) {
        const parsed = parsePriceMap(values[key] ?? '');
        if (!parsed.ok) return describe(key, parsed.problem);
      }
      return null;
    },
    [describe],
  );
  const card = useOptionCard(PRICING_KEYS, { jsonNames, validate });

  const priceText = card.value('ModelPrice');
  const ratioText = card.value('ModelRatio');
  const completionText = card.value('CompletionRatio');
  const cacheText = card.value('CacheRatio');
  const createCacheText = card.value('CreateCacheRatio');
  const { maps, problems } = useMemo(() => {
    const texts: Record<PricingKey, string> = {
      ModelPrice: priceText,
      ModelRatio: ratioText,
      CompletionRatio: completionText,
      CacheRatio: cacheText,
      CreateCacheRatio: createCacheText,
    };
    const parsedMaps = {} as PricingMaps;
    const found: Partial<Record<PricingKey, MapProblem>> = {};
    for (const key of PRICING_KEYS) {
      const parsed = parsePriceMap(texts[key]);
      if (parsed.ok) parsedMaps[key] = parsed.map;
      else found[key] = parsed.problem;
    }
    return { maps: Object.keys(found).length === 0 ? parsedMaps : null, problems: found };
  }, [priceText, ratioText, completionText, cacheText, createCacheText]);
  const rows = useMemo(() => (maps ? rowsFromMaps(maps) : []), [maps]);

  /** Writes the table's edit into the draft: only the maps it changed, and the stored text back when it undoes a change. */
  const { set } = card;
  const apply = useCallback(
    (next: PricingMaps) => {
      if (!maps) return;
      for (const key of PRICING_KEYS) {
        const text = nextOptionText(stored?.[key], maps[key], next[key]);
        if (text !== undefined) set(key, text);
      }
    },
    [maps, stored, set],
  );

  const reset = async () => {
    setResetting(true);
    try {
      const message = await resetModelRatios();
      Toast.success(message || t('reset.done'));
      card.discard();
      await queryClient.invalidateQueries({ queryKey: optionKeys.all });
    } catch {
      // The API client has shown the server's message.
    } finally {
      setResetting(false);
    }
  };

  return (
    <OptionCardFrame
      card={card}
      title={t('title')}
      icon={<IconPriceTag />}
      description={t('description')}
      testId="model-pricing-card"
      actions={
        <>
          <Button disabled={!card.dirty} onClick={card.discard} data-testid="model-pricing-discard">
            {t('draft.discard')}
          </Button>
          <Popconfirm
            title={t('reset.title')}
            content={t('reset.content')}
            okType="danger"
            okText={t('reset.confirm')}
            cancelText={t('reset.cancel')}
            position="top"
            onConfirm={() => void reset()}
          >
            <Button type="danger" icon={<IconRefresh />} loading={resetting} data-testid="model-pricing-reset">
              {t('reset.button')}
            </Button>
          </Popconfirm>
        </>
      }
    >
      {card.dirty && (
        <Banner
          type="warning"
          fullMode={false}
          closeIcon={null}
          className="mg-pricing-draft"
          description={t('draft.banner')}
          data-testid="model-pricing-draft"
        />
      )}
      <Tabs type="button" size="small" activeKey={tab} onChange={(key) => setTab(key as EditorTab)} className="mg-pricing-tabs">
        <TabPane itemKey="json" tab={t('tabs.json')}>
          <ModelPricingJson card={card} problems={problems} describe={describe} />
        </TabPane>
        <TabPane itemKey="visual" tab={t('tabs.visual')}>
          {maps ? (
            <ModelPricingTable
              rows={rows}
              onUpsert={(row, previousName) => apply(upsertRow(maps, previousName, row))}
              onDelete={(name) => apply(deleteRow(maps, name))}
            />
          ) : (
            <Banner
              type="danger"
              fullMode={false}
              closeIcon={null}
              data-testid="model-pricing-blocked"
              description={
                <>
                  <div>{t('errors.blocked')}</div>
                  {PRICING_KEYS.map((key) => problems[key] && <div key={key}>{describe(key, problems[key])}</div>)}
                </>
              }
            />
          )}
        </TabPane>
      </Tabs>
    </OptionCardFrame>
  );
}

import { Input, Modal, Typography } from '@douyinfe/semi-ui';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { modalButtonLabels } from '../../../../lib/modal-labels';
import {
  draftFromRow,
  fixedPriceTyped,
  formatUsd,
  parseNumberInput,
  tokenPrices,
  validateRowDraft,
  type ModelPricingRow,
  type RowDraft,
  type RowDraftErrors,
} from './model-pricing-rules';

interface ModelPricingModalProps {
  /** null: closed; 'new': adding; a row: editing it. */
  editing: ModelPricingRow | 'new' | null;
  /** Every row of the table, for the duplicate-name check. */
  rows: readonly ModelPricingRow[];
  onCancel: () => void;
  /** The checked row, and the name it had before (null when added). */
  onSubmit: (row: ModelPricingRow, previousName: string | null) => void;
}

type Field = keyof RowDraft;

/**
 * Adds or edits one model. Numbers are checked as they are typed (请输入数字), a name another row
 * has is refused (模型名称已存在), and a fixed price disables the ratio fields (spec 01 §5).
 */
export function ModelPricingModal({ editing, rows, onCancel, onSubmit }: ModelPricingModalProps) {
  const { t } = useTranslation('settings-model-pricing');
  const previousName = editing && editing !== 'new' ? editing.name : null;
  const [draft, setDraft] = useState<RowDraft>(() => draftFromRow(null));
  const [submitted, setSubmitted] = useState(false);

  useEffect(() => {
    if (editing === null) return;
    setDraft(draftFromRow(editing === 'new' ? null : editing));
    setSubmitted(false);
  }, [editing]);

  const result = useMemo(() => validateRowDraft(draft, rows, previousName), [draft, rows, previousName]);
  const errors: RowDraftErrors = result.errors ?? {};
  const fixed = fixedPriceTyped(draft);

  // Wrong numbers and taken names show while typing; what is merely missing waits for OK.
  const shown = (field: Field | 'row'): string | undefined => {
    const problem = errors[field];
    if (!problem) return undefined;
    if ((problem === 'required' || problem === 'noPrice') && !submitted) return undefined;
    return t(`errors.${problem}`);
  };

  const submit = () => {
    setSubmitted(true);
    if (result.row) onSubmit(result.row, previousName);
  };

  const change = (field: Field) => (value: string) => setDraft((current) => ({ ...current, [field]: value }));

  const preview = (() => {
    const price = parseNumberInput(draft.price);
    if (fixed) return price.ok && price.value !== undefined ? t('modal.fixedHint', { price: formatUsd(price.value) }) : null;
    const ratio = parseNumberInput(draft.ratio);
    const completion = parseNumberInput(draft.completionRatio);
    if (!ratio.ok || !completion.ok || ratio.value === undefined) return null;
    const prices = tokenPrices({ ratio: ratio.value, completionRatio: completion.value });
    return prices ? t('modal.tokenHint', { input: formatUsd(prices.input), output: formatUsd(prices.output) }) : null;
  })();

  const okText = t('modal.ok');
  const cancelText = t('modal.cancel');
  return (
    <Modal
      title={editing === 'new' ? t('modal.addTitle') : t('modal.editTitle')}
      visible={editing !== null}
      onOk={submit}
      onCancel={onCancel}
      okText={okText}
      cancelText={cancelText}
      {...modalButtonLabels(okText, cancelText)}
      maskClosable={false}
      className="mg-pricing-modal"
    >
      <div className="mg-modal-fields">
        <Typography.Text type="tertiary" size="small">
          {t('modal.hint')}
        </Typography.Text>
        <ModalField label={t('modal.name')} error={shown('name')}>
          <Input
            value={draft.name}
            onChange={change('name')}
            placeholder={t('modal.namePlaceholder')}
            validateStatus={shown('name') ? 'error' : 'default'}
            aria-label={t('modal.name')}
            data-testid="model-pricing-field-name"
            autoFocus
          />
        </ModalField>
        <ModalField label={t('modal.price')} error={shown('price')}>
          <Input
            value={draft.price}
            onChange={change('price')}
            placeholder={t('modal.pricePlaceholder')}
            prefix="$"
            validateStatus={shown('price') ? 'error' : 'default'}
            aria-label={t('modal.price')}
            data-testid="model-pricing-field-price"
          />
        </ModalField>
        <div className="mg-pricing-modal-pair">
          <ModalField label={t('modal.ratio')} error={fixed ? undefined : shown('ratio')}>
            <Input
              // With a fixed price the ratios are not billed, so they cannot be typed (what was typed comes back if the price is cleared).
              value={fixed ? '' : draft.ratio}
              onChange={change('ratio')}
              disabled={fixed}
              placeholder={fixed ? t('modal.disabledPlaceholder') : t('modal.ratioPlaceholder')}
              validateStatus={!fixed && shown('ratio') ? 'error' : 'default'}
              aria-label={t('modal.ratio')}
              data-testid="model-pricing-field-ratio"
            />
          </ModalField>
          <ModalField label={t('modal.completionRatio')} error={fixed ? undefined : shown('completionRatio')}>
            <Input
              value={fixed ? '' : draft.completionRatio}
              onChange={change('completionRatio')}
              disabled={fixed}
              placeholder={fixed ? t('modal.disabledPlaceholder') : t('modal.completionPlaceholder')}
              validateStatus={!fixed && shown('completionRatio') ? 'error' : 'default'}
              aria-label={t('modal.completionRatio')}
              data-testid="model-pricing-field-completion"
            />
          </ModalField>
        </div>
        <div className="mg-pricing-modal-pair">
          <ModalField label={t('modal.cacheRatio')} error={fixed ? undefined : shown('cacheRatio')}>
            <Input
              value={fixed ? '' : draft.cacheRatio}
              onChange={change('cacheRatio')}
              disabled={fixed}
              placeholder={fixed ? t('modal.disabledPlaceholder') : t('modal.cachePlaceholder')}
              validateStatus={!fixed && shown('cacheRatio') ? 'error' : 'default'}
              aria-label={t('modal.cacheRatio')}
              data-testid="model-pricing-field-cache"
            />
          </ModalField>
          <ModalField label={t('modal.createCacheRatio')} error={fixed ? undefined : shown('createCacheRatio')}>
            <Input
              value={fixed ? '' : draft.createCacheRatio}
              onChange={change('createCacheRatio')}
              disabled={fixed}
              placeholder={fixed ? t('modal.disabledPlaceholder') : t('modal.createCachePlaceholder')}
              validateStatus={!fixed && shown('createCacheRatio') ? 'error' : 'default'}
              aria-label={t('modal.createCacheRatio')}
              data-testid="model-pricing-field-create-cache"
            />
          </ModalField>
        </div>
        {shown('row') && (
          <Typography.Text type="danger" size="small" className="mg-pricing-field-error">
            {shown('row')}
          </Typography.Text>
        )}
        {preview && (
          <Typography.Text type="secondary" size="small" data-testid="model-pricing-preview">
            {preview}
          </Typography.Text>
        )}
      </div>
    </Modal>
  );
}

function ModalField({ label, error, children }: { label: string; error?: string; children: ReactNode }) {
  return (
    <label className="mg-pricing-modal-field">
      <span className="mg-field-label">{label}</span>
      {children}
      {error && (
        <Typography.Text type="danger" size="small" className="mg-pricing-field-error">
          {error}
        </Typography.Text>
      )}
    </label>
  );
}

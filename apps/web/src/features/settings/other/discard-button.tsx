import { Button } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import type { OptionCard } from '../options/use-option-card';

/** Beside a card's save button while something unsaved was typed: back to the stored value. */
export function DiscardButton({ card }: { card: OptionCard }) {
  const { t } = useTranslation('settings-other');
  if (!card.dirty) return null;
  return (
    <Button type="tertiary" onClick={card.discard} disabled={card.saving}>
      {t('discard')}
    </Button>
  );
}

import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { OptionCard } from '../options/use-option-card';

/**
 * The public pages cache their content (home, about, notice) for minutes; after a save they must
 * show the new text on the admin's next visit, not the cached one. useOptionCard refreshes the
 * options and the status; this refreshes the page's own query too.
 */
export function useRefreshingCard(card: OptionCard, queryKey: QueryKey): OptionCard {
  const queryClient = useQueryClient();
  const { save: saveCard } = card;
  const save = useCallback(async () => {
    const report = await saveCard();
    if (report && report.saved.length > 0) await queryClient.invalidateQueries({ queryKey });
    return report;
  }, [saveCard, queryClient, queryKey]);
  return { ...card, save };
}

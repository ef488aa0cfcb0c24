import { useQuery } from '@tanstack/react-query';
import { useSessionUser } from '../../lib/session';
import { fetchPricing } from './api';

export const pricingKeys = {
  // Signing in adds the user's own group to the answer, so the viewer is part of the key.
  list: (userId: number | null) => ['pricing', userId] as const,
};

export function usePricing() {
  const userId = useSessionUser()?.id ?? null;
  return useQuery({ queryKey: pricingKeys.list(userId), queryFn: fetchPricing, staleTime: 60_000 });
}

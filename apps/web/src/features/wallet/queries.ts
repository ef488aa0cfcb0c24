import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { UserInfo } from '../auth/api';
import { selfKeys } from '../auth/queries';
import { quoteTopUp, redeemCode, requestPayment, type PaymentMethod } from './api';

export const walletKeys = {
  all: ['wallet'] as const,
  quote: (amount: number) => [...walletKeys.all, 'quote', amount] as const,
};

/** Redeeming changes the balance: the added quota shows at once, then the server's figure replaces it. */
export function useRedeemCode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: redeemCode,
    onSuccess: (added) => {
      queryClient.setQueriesData<UserInfo>({ queryKey: selfKeys.all }, (user) => (user ? { ...user, quota: (user.quota ?? 0) + added } : user));
      void queryClient.invalidateQueries({ queryKey: selfKeys.all });
    },
  });
}

/** Waits until the value has settled for `delay` ms, so typing does not fire a request per key. */
function useDebounced<T>(value: T, delay: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

/** The live price for an amount; null amount (invalid input) asks nothing. */
export function useTopUpQuote(amount: number | null, enabled: boolean) {
  const settled = useDebounced(amount, 300);
  const query = useQuery({
    queryKey: walletKeys.quote(settled ?? 0),
    queryFn: ({ signal }) => quoteTopUp(settled ?? 0, signal),
    enabled: enabled && settled !== null,
    staleTime: 60_000,
    retry: false,
  });
  return { ...query, settling: settled !== amount };
}

export function useRequestPayment() {
  return useMutation({
    mutationFn: ({ amount, method }: { amount: number; method: PaymentMethod }) => requestPayment(amount, method),
  });
}

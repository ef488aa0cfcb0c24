import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useSessionUser } from '../../lib/session';
import { fetchPasskeys } from './api';

export const passkeyKeys = {
  list: (userId: number | null) => ['user', 'passkeys', userId] as const,
};

export function usePasskeys() {
  const userId = useSessionUser()?.id ?? null;
  return useQuery({ queryKey: passkeyKeys.list(userId), queryFn: fetchPasskeys, enabled: userId !== null });
}

export function useRefreshPasskeys(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.invalidateQueries({ queryKey: ['user', 'passkeys'] }), [queryClient]);
}

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useSessionUser } from '../../lib/session';
import { selfKeys, useSelf } from '../auth/queries';
import { fetchAffCode, fetchTwoFactorStatus, fetchUserModels, type SelfProfile } from './api';

export const settingsKeys = {
  affCode: (userId: number | null) => ['user', 'aff', userId] as const,
  models: (userId: number | null) => ['user', 'models', userId] as const,
  twoFactor: (userId: number | null) => ['user', '2fa', userId] as const,
};

/** The signed-in user's full profile, shared with the shell's query so both stay in step. */
export function useSelfProfile() {
  const query = useSelf();
  return { ...query, data: query.data as SelfProfile | undefined };
}

/** Call after anything that changes the balance, bindings or name. */
export function useRefreshSelf(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.invalidateQueries({ queryKey: selfKeys.all }), [queryClient]);
}

export function useAffCode() {
  const userId = useSessionUser()?.id ?? null;
  return useQuery({ queryKey: settingsKeys.affCode(userId), queryFn: fetchAffCode, enabled: userId !== null, staleTime: Infinity });
}

export function useUserModels() {
  const userId = useSessionUser()?.id ?? null;
  return useQuery({ queryKey: settingsKeys.models(userId), queryFn: fetchUserModels, enabled: userId !== null, staleTime: 60_000 });
}

export function useTwoFactorStatus() {
  const userId = useSessionUser()?.id ?? null;
  return useQuery({ queryKey: settingsKeys.twoFactor(userId), queryFn: fetchTwoFactorStatus, enabled: userId !== null });
}

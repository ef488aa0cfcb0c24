import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { fetchTokens, fetchUsableGroups, fetchUserModels, type TokenListParams } from './api';

export const tokenKeys = {
  all: ['tokens'] as const,
  list: (params: TokenListParams) => [...tokenKeys.all, 'list', params] as const,
  groups: ['user', 'self', 'groups'] as const,
  models: ['user', 'models'] as const,
};

export function useTokenList(params: TokenListParams) {
  return useQuery({ queryKey: tokenKeys.list(params), queryFn: () => fetchTokens(params), placeholderData: keepPreviousData });
}

export function useUsableGroups(enabled = true) {
  return useQuery({ queryKey: tokenKeys.groups, queryFn: fetchUsableGroups, staleTime: 60_000, enabled });
}

export function useUserModels(enabled = true) {
  return useQuery({ queryKey: tokenKeys.models, queryFn: fetchUserModels, staleTime: 60_000, enabled });
}

/** Every token list page is refetched after a write. */
export function useRefreshTokens(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(() => client.invalidateQueries({ queryKey: tokenKeys.all }), [client]);
}

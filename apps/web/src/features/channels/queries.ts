import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { fetchChannel, fetchChannels, fetchGroups, fetchModelCatalogue, type ChannelListParams } from './api';

export const channelKeys = {
  all: ['channels'] as const,
  list: (params: ChannelListParams) => [...channelKeys.all, 'list', params] as const,
  detail: (id: number) => [...channelKeys.all, 'detail', id] as const,
  groups: ['groups', 'admin'] as const,
  catalogue: ['channels', 'catalogue'] as const,
};

export function useChannelList(params: ChannelListParams) {
  return useQuery({
    queryKey: channelKeys.list(params),
    queryFn: () => fetchChannels(params),
    placeholderData: keepPreviousData,
  });
}

export function useChannel(id: number | null) {
  return useQuery({
    queryKey: channelKeys.detail(id ?? 0),
    queryFn: () => fetchChannel(id ?? 0),
    enabled: id !== null,
    // A missing channel is an answer, not a hiccup: asking again would only repeat the toast.
    retry: false,
    // The form starts from what is stored now, not from a cached copy.
    staleTime: 0,
    gcTime: 0,
  });
}

export function useGroups(enabled = true) {
  return useQuery({ queryKey: channelKeys.groups, queryFn: fetchGroups, staleTime: 60_000, enabled });
}

export function useModelCatalogue(enabled = true) {
  return useQuery({ queryKey: channelKeys.catalogue, queryFn: fetchModelCatalogue, staleTime: 60_000, enabled });
}

/** Every channel query (list pages, details, catalogue) is refetched after a write. */
export function useRefreshChannels(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(() => client.invalidateQueries({ queryKey: channelKeys.all }), [client]);
}

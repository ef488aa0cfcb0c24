import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { PageData } from '@modelgate/contract';
import { fetchGroupRatios, fetchGroups, fetchSelfUser, fetchUser, listUsers, type ManagedUser, type UserListQuery } from './api';

/** Which user a drawer edits: an id from the list, or the signed-in admin (/user/edit). */
export type EditTarget = number | 'self';

export const userKeys = {
  lists: ['user', 'list'] as const,
  list: (query: UserListQuery) => ['user', 'list', query] as const,
  detail: (target: EditTarget) => ['user', 'detail', target] as const,
  groups: ['group', 'names'] as const,
  groupRatios: ['group', 'ratios'] as const,
};

export function useUserList(query: UserListQuery) {
  return useQuery({ queryKey: userKeys.list(query), queryFn: () => listUsers(query), placeholderData: keepPreviousData });
}

export function useManagedUser(target: EditTarget | null) {
  return useQuery({
    queryKey: userKeys.detail(target ?? 0),
    queryFn: () => (target === 'self' ? fetchSelfUser() : fetchUser(target as number)),
    enabled: target !== null,
    // The drawer must show the values as they are now, not as they were when last opened.
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}

export function useGroups() {
  return useQuery({ queryKey: userKeys.groups, queryFn: fetchGroups, staleTime: 60_000 });
}

export function useGroupRatios() {
  return useQuery({ queryKey: userKeys.groupRatios, queryFn: fetchGroupRatios, staleTime: 60_000, retry: false });
}

/**
 * Spec 01 §4: after a non-delete action the row takes the status and role (and quota) the server
 * answered, without reloading the page.
 */
export function usePatchUserRow(): (id: number, patch: Partial<ManagedUser>) => void {
  const queryClient = useQueryClient();
  return useCallback(
    (id, patch) => {
      queryClient.setQueriesData<PageData<ManagedUser>>({ queryKey: userKeys.lists }, (page) =>
        page ? { ...page, items: page.items.map((user) => (user.id === id ? { ...user, ...patch } : user)) } : page,
      );
    },
    [queryClient],
  );
}

export function useInvalidateUsers(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.invalidateQueries({ queryKey: userKeys.lists }), [queryClient]);
}

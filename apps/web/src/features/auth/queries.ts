import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { getSessionUser, setSessionUser, useSessionUser, type SessionUser } from '../../lib/session';
import { fetchSelf, type UserInfo } from './api';

export const selfKeys = { all: ['user', 'self'] as const };

/** The fields kept in localStorage `user`; quota and the like are always read fresh. */
export function toSessionUser(user: UserInfo): SessionUser {
  return {
    id: user.id,
    username: user.username,
    display_name: user.display_name,
    role: Number(user.role ?? 0),
    status: user.status,
    group: user.group,
  };
}

/**
 * The current user from /api/user/self. While signed in it also refreshes the stored user, so a role
 * change made by an admin shows up in the navigation without logging out.
 */
export function useSelf() {
  const user = useSessionUser();
  const query = useQuery({
    queryKey: [...selfKeys.all, user?.id ?? null],
    queryFn: fetchSelf,
    enabled: user !== null,
    staleTime: 30_000,
    retry: false,
  });

  useEffect(() => {
    const fresh = query.data;
    const stored = getSessionUser();
    if (!fresh || !stored || fresh.id !== stored.id) return;
    const next = toSessionUser(fresh);
    const changed = (Object.keys(next) as Array<keyof SessionUser>).some((key) => next[key] !== stored[key]);
    if (changed) setSessionUser(next);
  }, [query.data]);

  return query;
}

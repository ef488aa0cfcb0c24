import { useIsFetching, useQuery } from '@tanstack/react-query';
import { useStatus, statusKeys } from '../status/queries';
import { fetchFirstEnabledTokenKey } from './api';
import { buildChatUrl, ChatConfigError, pickChatLink, serverAddressOf, type ChatLink } from './chat-links';

export const chatKeys = {
  firstEnabledToken: ['chat', 'first-enabled-token'] as const,
};

export type ChatTarget =
  | { state: 'loading' }
  | { state: 'invalid-config' }
  | { state: 'no-link' }
  | { state: 'no-token' }
  | { state: 'failed'; retry: () => void }
  | { state: 'ready'; url: string; link: ChatLink };

function safePick(status: ReturnType<typeof useStatus>, target: Parameters<typeof pickChatLink>[1]) {
  try {
    return { link: pickChatLink(status, target), invalid: false };
  } catch (error) {
    if (error instanceof ChatConfigError) return { link: null, invalid: true };
    throw error;
  }
}

/** Resolves the chat link and the user's first enabled key into the address to open. */
export function useChatTarget(target: { index: number } | 'redirect'): ChatTarget {
  const status = useStatus();
  // The stored status can be older than the admin's last change: wait for the fresh one before saying "none".
  const statusLoading = useIsFetching({ queryKey: statusKeys.all }) > 0;
  const { link, invalid } = safePick(status, target);
  const token = useQuery({
    queryKey: chatKeys.firstEnabledToken,
    queryFn: fetchFirstEnabledTokenKey,
    enabled: link !== null,
    // A full key: read once per visit of a chat page (key reads are rate limited, and a refetch
    // on focus could swap the open chat for an error), and dropped from the cache when it closes.
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    retry: false,
  });

  if (invalid) return statusLoading ? { state: 'loading' } : { state: 'invalid-config' };
  if (!link) return statusLoading ? { state: 'loading' } : { state: 'no-link' };
  if (token.isPending) return { state: 'loading' };
  // api-client has already explained a failed call; this only offers a retry.
  if (token.isError) return { state: 'failed', retry: () => void token.refetch() };
  if (!token.data) return { state: 'no-token' };
  return { state: 'ready', link, url: buildChatUrl(link, token.data, serverAddressOf(status)) };
}

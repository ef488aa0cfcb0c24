import type { PageData, TokenKey, WireToken } from '@modelgate/contract';
import { TokenStatus } from '@modelgate/contract';
import { api } from '../../lib/api-client';

/**
 * Spec 02 §9: the chat pages read the first 100 tokens and use the first enabled one. The list
 * holds masked keys, so that token's full key is read from its key route.
 */
export async function fetchFirstEnabledTokenKey(): Promise<string | null> {
  const { data } = await api.get<PageData<WireToken>>('/api/token/', { query: { p: 1, size: 100 } });
  const enabled = (data.items ?? []).find((token) => token.status === TokenStatus.Enabled);
  if (!enabled) return null;
  const { data: full } = await api.post<TokenKey>(`/api/token/${enabled.id}/key`);
  return full.key;
}

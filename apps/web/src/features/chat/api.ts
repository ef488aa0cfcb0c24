import type { PageData } from '@modelgate/contract';
import { TokenStatus } from '@modelgate/contract';
import { api } from '../../lib/api-client';

interface TokenKeyRow {
  id: number;
  key: string;
  status: number;
}

/** Spec 02 §9: the chat pages read the first 100 tokens and use the first enabled one. */
export async function fetchFirstEnabledTokenKey(): Promise<string | null> {
  const { data } = await api.get<PageData<TokenKeyRow>>('/api/token/', { query: { p: 1, size: 100 } });
  const enabled = (data.items ?? []).find((token) => token.status === TokenStatus.Enabled && token.key);
  return enabled ? enabled.key : null;
}

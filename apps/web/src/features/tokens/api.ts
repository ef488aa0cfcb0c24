import type { PageData, TokenKey, TokenKeys, UsableGroups, WireRateLimits, WireToken } from '@modelgate/contract';
import { api } from '../../lib/api-client';

export { rethrowUnlessApiError } from '../../lib/api-client';

/** A token as its owner sees it: the key masked, without the sk- prefix the console adds (the full key comes from fetchTokenKey). */
export type Token = WireToken;

export interface TokenListParams {
  page: number;
  pageSize: number;
  keyword: string;
  token: string;
}

/** What the token form sends; the rate limits are 0 for none. */
export interface TokenInput extends WireRateLimits {
  name: string;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
}

/** What a user may pick for a token's group: name → {desc, ratio}. */
export type { UsableGroups };

export async function fetchTokens(params: TokenListParams): Promise<PageData<Token>> {
  const searching = params.keyword !== '' || params.token !== '';
  const { data } = await api.get<PageData<Token>>(searching ? '/api/token/search' : '/api/token/', {
    query: {
      p: params.page,
      size: params.pageSize,
      keyword: params.keyword || undefined,
      // The key filter matches the stored key, which has no sk- prefix.
      token: params.token.replace(/^sk-/, '') || undefined,
    },
  });
  return { ...data, items: data.items ?? [] };
}

export async function createToken(input: TokenInput): Promise<Token> {
  const { data } = await api.post<Token>('/api/token/', input);
  return data;
}

export async function updateToken(input: TokenInput & { id: number }): Promise<Token> {
  const { data } = await api.put<Token>('/api/token/', input);
  return data;
}

export async function setTokenStatus(id: number, status: number): Promise<Token> {
  const { data } = await api.put<Token>('/api/token/', { id, status }, { query: { status_only: true } });
  return data;
}

/**
 * The full key (without sk-), read when the user copies it, views it or opens a chat link. Never
 * put it in a query cache: callers use it at once and let it go.
 */
export async function fetchTokenKey(id: number): Promise<string> {
  const { data } = await api.post<TokenKey>(`/api/token/${id}/key`);
  return data.key;
}

/** Full keys of several of the user's own tokens, by id (copy selected); ids no longer found are left out. */
export async function fetchTokenKeys(ids: number[]): Promise<Record<number, string>> {
  const { data } = await api.post<TokenKeys>('/api/token/batch/keys', { ids });
  return data.keys ?? {};
}

export async function deleteToken(id: number): Promise<void> {
  await api.delete<unknown>(`/api/token/${id}/`);
}

export async function fetchUsableGroups(): Promise<UsableGroups> {
  const { data } = await api.get<UsableGroups>('/api/user/self/groups');
  return data ?? {};
}

export async function fetchUserModels(): Promise<string[]> {
  const { data } = await api.get<string[]>('/api/user/models');
  return data ?? [];
}

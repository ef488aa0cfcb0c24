import type { PageData, Redemption } from '@modelgate/contract';
import { api } from '../../lib/api-client';

/** A redemption code as GET /api/redemption/ lists it (spec 02 §3). */
export type { Redemption };

export interface RedemptionListParams {
  page: number;
  pageSize: number;
  keyword: string;
}

export interface RedemptionCreateInput {
  name: string;
  quota: number;
  count: number;
}

export interface RedemptionUpdateInput {
  id: number;
  name: string;
  quota: number;
}

/** A keyword switches to the search endpoint, which matches an ID or a name prefix. */
export async function listRedemptions({ page, pageSize, keyword }: RedemptionListParams): Promise<PageData<Redemption>> {
  const query = { p: page, page_size: pageSize };
  const { data } = keyword
    ? await api.get<PageData<Redemption>>('/api/redemption/search', { query: { ...query, keyword } })
    : await api.get<PageData<Redemption>>('/api/redemption/', { query });
  return { ...data, items: data.items ?? [] };
}

export async function getRedemption(id: number): Promise<Redemption> {
  const { data } = await api.get<Redemption>(`/api/redemption/${id}`);
  return data;
}

/** Answers the generated keys, in creation order. */
export async function createRedemptions(input: RedemptionCreateInput): Promise<string[]> {
  const { data } = await api.post<string[]>('/api/redemption/', input);
  return Array.isArray(data) ? data : [];
}

export async function updateRedemption(input: RedemptionUpdateInput): Promise<Redemption> {
  const { data } = await api.put<Redemption>('/api/redemption/', input);
  return data;
}

export async function setRedemptionStatus(id: number, status: number): Promise<Redemption> {
  const { data } = await api.put<Redemption>('/api/redemption/', { id, status }, { query: { status_only: true } });
  return data;
}

export async function deleteRedemption(id: number): Promise<void> {
  await api.delete<unknown>(`/api/redemption/${id}/`);
}

import type { QuotaDataRow } from '@modelgate/contract';
import { api } from '../../lib/api-client';

export type { QuotaDataRow };

export interface QuotaDataQuery {
  /** Unix seconds. */
  start: number;
  end: number;
  admin: boolean;
  /** Admin only; empty: every user summed per model and hour. */
  username: string;
}

const toNumber = (value: unknown) => {
  const number = Number(value);
  return Number.isFinite(number) ? number : 0;
};

// MySQL sums arrive as strings; the charts need numbers.
function toRow(raw: Record<string, unknown>): QuotaDataRow {
  return {
    id: toNumber(raw.id),
    user_id: toNumber(raw.user_id),
    username: String(raw.username ?? ''),
    model_name: String(raw.model_name ?? ''),
    created_at: toNumber(raw.created_at),
    token_used: toNumber(raw.token_used),
    count: toNumber(raw.count),
    quota: toNumber(raw.quota),
  };
}

/** GET /api/data/ (admin, optionally one user) or /api/data/self; a failure has already been toasted. */
export async function fetchQuotaData(query: QuotaDataQuery): Promise<QuotaDataRow[]> {
  const { data } = await api.get<Record<string, unknown>[] | null>(query.admin ? '/api/data/' : '/api/data/self', {
    query: {
      username: query.admin ? query.username : undefined,
      start_timestamp: query.start,
      end_timestamp: query.end,
    },
  });
  return (data ?? []).map(toRow);
}

import type { LogStat, PageData, WireLog } from '@modelgate/contract';
import { api } from '../../lib/api-client';

/** A row of GET /api/log/ (admin) or /api/log/self; `other` is the JSON text the relay stored. */
export type LogEntry = WireLog;
export type { LogStat };

/** The filters of spec 02 §2; empty strings and 0 mean "no filter", as new-api reads them. */
export interface LogFilters {
  type: number;
  tokenName: string;
  modelName: string;
  group: string;
  /** Unix seconds, 0 unset. */
  start: number;
  end: number;
  /** Admin only. */
  channel: string;
  username: string;
}

export interface LogListParams extends LogFilters {
  page: number;
  pageSize: number;
  admin: boolean;
}

export function filterQuery(filters: LogFilters, admin: boolean) {
  return {
    type: filters.type || undefined,
    token_name: filters.tokenName || undefined,
    model_name: filters.modelName || undefined,
    group: filters.group || undefined,
    start_timestamp: filters.start || undefined,
    end_timestamp: filters.end || undefined,
    channel: admin ? filters.channel || undefined : undefined,
    username: admin ? filters.username || undefined : undefined,
  };
}

export async function fetchLogs(params: LogListParams): Promise<PageData<LogEntry>> {
  const { data } = await api.get<PageData<LogEntry>>(params.admin ? '/api/log/' : '/api/log/self', {
    query: { p: params.page, page_size: params.pageSize, ...filterQuery(params, params.admin) },
  });
  return { ...data, items: data.items ?? [] };
}

/** The chips' figures; the type filter does not narrow them, as in new-api (the stat counts consumption). */
export async function fetchLogStat(filters: LogFilters, admin: boolean): Promise<LogStat> {
  const { data } = await api.get<LogStat>(admin ? '/api/log/stat' : '/api/log/self/stat', { query: filterQuery(filters, admin) });
  return data;
}

/** Removes every log written before `timestamp` (Unix seconds); answers how many went. */
export async function clearLogsBefore(timestamp: number): Promise<number> {
  const { data } = await api.delete<number>('/api/log/', { query: { target_timestamp: timestamp } });
  return Number(data) || 0;
}

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PageData } from '@modelgate/contract';

export interface Paging {
  /** 1-based page number. */
  page: number;
  pageSize: number;
  offset: number;
}

const positiveInt = (raw: unknown): number | undefined => {
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (typeof text !== 'string' && typeof text !== 'number') return undefined;
  const value = Number(text);
  return Number.isInteger(value) ? value : undefined;
};

/**
 * Reads `p` and the page size from a console query. new-api's console sends p from 1 while
 * some callers count from 0, so p <= 1 is the first page; sizes outside 1..MAX fall back or clamp.
 * `sizeKeys` lists the parameter names a list accepts for its page size, first match wins.
 */
export function readPaging(query: unknown, sizeKeys: string[] = ['page_size']): Paging {
  const params = (query ?? {}) as Record<string, unknown>;
  const page = Math.max(1, positiveInt(params.p) ?? 1);
  let pageSize = DEFAULT_PAGE_SIZE;
  for (const key of sizeKeys) {
    const value = positiveInt(params[key]);
    if (value !== undefined && value > 0) {
      pageSize = Math.min(value, MAX_PAGE_SIZE);
      break;
    }
  }
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export const pageOf = <T>(items: T[], total: number, paging: Paging): PageData<T> => ({
  items,
  total,
  page: paging.page,
  page_size: paging.pageSize,
});

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PageData } from '@modelgate/contract';

export interface Paging {
  /** 1-based page number echoed back to the console. */
  page: number;
  pageSize: number;
  offset: number;
}

const toInt = (value: unknown): number | undefined => {
  const number = Number(Array.isArray(value) ? value[0] : value);
  return Number.isFinite(number) ? Math.trunc(number) : undefined;
};

/**
 * Reads `p` and `page_size` (or `size`). new-api's console sends p from 1 on most lists and
 * from 0 on the users list, so 0 and 1 both mean the first page.
 */
export function parsePaging(query: Record<string, unknown>): Paging {
  const page = Math.max(1, toInt(query.p) ?? 1);
  const requested = toInt(query.page_size) ?? toInt(query.size) ?? DEFAULT_PAGE_SIZE;
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, requested));
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export const pageData = <T>(items: T[], total: number, paging: Paging): PageData<T> => ({
  items,
  total,
  page: paging.page,
  page_size: paging.pageSize,
});

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PageData } from '@modelgate/contract';

export interface Paging {
  /** 1-based page number. */
  page: number;
  pageSize: number;
  offset: number;
}

/**
 * The last page anyone can ask for. `?p=1e308` is an integer to JavaScript but not to the
 * databases (SQLite refuses the offset as a datatype mismatch): with this cap the offset stays
 * below 1e8, a safe integer everywhere, and a page that far out is simply empty.
 */
export const MAX_PAGE = 1_000_000;

const integerParam = (raw: unknown): number | undefined => {
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
  const page = Math.min(MAX_PAGE, Math.max(1, integerParam(params.p) ?? 1));
  let pageSize = DEFAULT_PAGE_SIZE;
  for (const key of sizeKeys) {
    const value = integerParam(params[key]);
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

/** A console list's query string, as Fastify parses it. */
export type ListQuery = Record<string, unknown>;

/** A text filter: the first value given, trimmed; '' when absent. */
export function queryText(query: ListQuery, name: string): string {
  const raw = query[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * A number filter as new-api reads it (Atoi): a bad value is 0, no filter. Past 15 digits a value
 * is no timestamp or id, and PostgreSQL would refuse it as a bigint, so it counts as bad too.
 */
export function queryInteger(query: ListQuery, name: string): number {
  const value = queryText(query, name);
  return /^-?\d{1,15}$/.test(value) ? Number(value) : 0;
}

import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { usePageSize } from './page-size';

/** Query parameters to set; null or '' removes one, so a cleared filter leaves no `?keyword=` behind. */
export type ParamChanges = Record<string, string | null>;

/** The URL parameter of the page number; page 1 is the bare address. */
export const PAGE_PARAM = 'p';

export function applyParamChanges(current: URLSearchParams, changes: ParamChanges): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') next.delete(name);
    else next.set(name, value);
  }
  return next;
}

/** A page number typed or pasted into the address: anything but a whole page from 1 up reads as page 1. */
export function pageFromParam(raw: string | null): number {
  const page = Math.floor(Number(raw));
  return Number.isFinite(page) && page >= 1 ? page : 1;
}

export function pageParamChange(page: number): ParamChanges {
  return { [PAGE_PARAM]: page > 1 ? String(page) : null };
}

export interface UrlParamsOptions {
  /**
   * Replace the history entry instead of pushing one: for parameters that change as the user types
   * or picks a tab, where Back should leave the screen rather than undo each keystroke.
   */
  replace?: boolean;
}

/**
 * The address's query as an object that stays the same until the text changes (so it can key
 * queries and memos), and one updater that merges changes into whatever the address holds then.
 */
export function useUrlParams({ replace = false }: UrlParamsOptions = {}) {
  const [searchParams, setSearchParams] = useSearchParams();
  const paramsKey = searchParams.toString();
  const params = useMemo(() => new URLSearchParams(paramsKey), [paramsKey]);
  const update = useCallback(
    (changes: ParamChanges) => setSearchParams((current) => applyParamChanges(current, changes), replace ? { replace: true } : undefined),
    [setSearchParams, replace],
  );
  return { params, update };
}

/**
 * A table screen's filters and page in the address (so a filtered page can be shared and reloaded),
 * the page size in localStorage (spec 01 §9). `read` turns the query into the screen's typed
 * filters; pass a stable function (module level or useCallback), or the filters change every render.
 * A filter change or a new page size starts again from page 1.
 */
export function useUrlFilters<Filters>(read: (params: URLSearchParams) => Filters, options: UrlParamsOptions = {}) {
  const { params, update } = useUrlParams(options);
  const [pageSize, storePageSize] = usePageSize();
  const filters = useMemo(() => read(params), [read, params]);
  const page = pageFromParam(params.get(PAGE_PARAM));

  const setFilters = useCallback((changes: ParamChanges) => update({ ...changes, ...pageParamChange(1) }), [update]);
  const setPage = useCallback((next: number) => update(pageParamChange(next)), [update]);
  const setPageSize = useCallback(
    (size: number) => {
      storePageSize(size);
      update(pageParamChange(1));
    },
    [storePageSize, update],
  );

  return { params, filters, page, pageSize, setFilters, setPage, setPageSize, update };
}

import { useCallback, useState } from 'react';
import { useUrlFilters } from '../../lib/use-url-filters';
import { defaultRange, filterParamChanges, filtersFromParams, requestFilters, type RangeKind, type TaskFilters } from './task-rules';

/**
 * The page and filters of a task screen, kept in the URL as the log screen keeps its own, so a
 * filtered page can be shared and reloaded. The default range is fixed when the screen opens, so
 * the list is not fetched again every time "now" moves on; its end ("now") is asked of the server
 * as open (`query`), so a refresh also lists tasks submitted after the screen opened.
 */
export function useTaskSearch(kind: RangeKind) {
  const [defaults, setDefaults] = useState(() => defaultRange(kind, new Date()));
  const read = useCallback((params: URLSearchParams) => filtersFromParams(params, defaults), [defaults]);
  const { filters, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(read);

  /**
   * Shows `next` from page 1. Returns false when that is what is shown already (the address would
   * not change), so the screen fetches the list again itself: 查询 then also refreshes.
   */
  const applyFilters = useCallback(
    (next: TaskFilters): boolean => {
      const changes = filterParamChanges(next, defaults);
      const unchanged = page === 1 && JSON.stringify(changes) === JSON.stringify(filterParamChanges(filters, defaults));
      if (unchanged) return false;
      setFilters(changes);
      return true;
    },
    [setFilters, defaults, filters, page],
  );
  /** Back to the screen's defaults, with a fresh "now". */
  const reset = useCallback(() => {
    setDefaults(defaultRange(kind, new Date()));
    setFilters(filterParamChanges({ start: 0, end: 0, taskId: '', channel: '' }));
  }, [kind, setFilters]);

  return { filters, query: requestFilters(filters, defaults), page, pageSize, applyFilters, setPage, setPageSize, reset };
}

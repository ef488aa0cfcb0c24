import { useCallback, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { defaultRange, filterParamChanges, filtersFromParams, type RangeKind, type TaskFilters } from './task-rules';

/**
 * The page and filters of a task screen, kept in the URL as the log screen keeps its own, so a
 * filtered page can be shared and reloaded. The default range is fixed when the screen opens, so
 * the list is not fetched again every time "now" moves on.
 */
export function useTaskSearch(kind: RangeKind) {
  const [searchParams, setSearchParams] = useSearchParams();
  const [defaults, setDefaults] = useState(() => defaultRange(kind, new Date()));
  const paramsKey = searchParams.toString();
  const filters = useMemo(() => filtersFromParams(new URLSearchParams(paramsKey), defaults), [paramsKey, defaults]);
  const page = Math.max(1, Number(searchParams.get('p')) || 1);

  const update = useCallback(
    (changes: Record<string, string | null>) =>
      setSearchParams((current) => {
        const next = new URLSearchParams(current);
        for (const [name, value] of Object.entries(changes)) {
          if (value === null || value === '') next.delete(name);
          else next.set(name, value);
        }
        return next;
      }),
    [setSearchParams],
  );

  const applyFilters = useCallback((next: TaskFilters) => update(filterParamChanges(next)), [update]);
  const setPage = useCallback((next: number) => update({ p: next > 1 ? String(next) : null }), [update]);
  /** Back to the screen's defaults, with a fresh "now". */
  const reset = useCallback(() => {
    setDefaults(defaultRange(kind, new Date()));
    update({ ...filterParamChanges({ start: 0, end: 0, taskId: '', channel: '' }) });
  }, [kind, update]);

  return { filters, page, applyFilters, setPage, reset };
}

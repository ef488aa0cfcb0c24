import type { TablePaginationProps } from '@douyinfe/semi-ui/lib/es/table';
import { useTranslation } from 'react-i18next';
import { PAGE_SIZE_CHOICES } from '../../lib/page-size';
import { useNarrowScreen } from '../../lib/use-narrow-screen';

export interface TablePaging {
  page: number;
  pageSize: number;
  total: number;
  onPageChange: (page: number) => void;
  /** Omitted for tables with a fixed page size: they offer no size changer. */
  onPageSizeChange?: (size: number) => void;
}

/**
 * The paging block under every console table. On a phone it is one line: a small pager and a short
 * "1–10 / 50" instead of the long page text and the size changer, which wrapped onto four lines there.
 */
export function useTablePagination({ page, pageSize, total, onPageChange, onPageSizeChange }: TablePaging): TablePaginationProps {
  const { t } = useTranslation('common');
  const narrow = useNarrowScreen();
  const range = (info?: { currentStart?: number; currentEnd?: number; total?: number }) => ({
    start: info?.currentStart ?? 0,
    end: info?.currentEnd ?? 0,
    total: info?.total ?? total,
  });
  return {
    currentPage: page,
    pageSize,
    total,
    onPageChange,
    size: narrow ? 'small' : 'default',
    showSizeChanger: Boolean(onPageSizeChange) && !narrow,
    ...(onPageSizeChange ? { pageSizeOpts: PAGE_SIZE_CHOICES, onPageSizeChange } : {}),
    // An empty table says so itself; "0-0 / 0" under it adds nothing.
    formatPageText: (info) => (total > 0 ? t(narrow ? 'pagination.short' : 'pagination.range', range(info)) : ''),
  };
}

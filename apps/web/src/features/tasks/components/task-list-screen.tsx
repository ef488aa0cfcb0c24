import { Empty, Table, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTablePagination } from '../../../components/shared/table-pagination';
import type { useTaskSearch } from '../use-task-search';
import { tableWidth } from './task-cells';
import { TaskFilterBar } from './task-filter-bar';

interface TaskListScreenProps<Row extends { id: number }> {
  /** `mj` or `task`: the screen's test ids (`mj-page`, `mj-row-3`, the filter bar's). */
  testIdPrefix: string;
  title: string;
  /** Shown between the title and the filters. */
  banner?: ReactNode;
  search: ReturnType<typeof useTaskSearch>;
  admin: boolean;
  list: UseQueryResult<{ items: Row[]; total: number }>;
  columns: ColumnProps<Row>[];
  narrow: boolean;
  empty: string;
  /** The screen's dialogs. */
  children?: ReactNode;
}

/** The layout /midjourney and /task share: title, filter bar and the paged table of tasks. */
export function TaskListScreen<Row extends { id: number }>({
  testIdPrefix,
  title,
  banner,
  search,
  admin,
  list,
  columns,
  narrow,
  empty,
  children,
}: TaskListScreenProps<Row>) {
  const { filters, page, pageSize, applyFilters, setPage, setPageSize, reset } = search;
  const pagination = useTablePagination({ page, pageSize, total: list.data?.total ?? 0, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-page mg-task-page" data-testid={`${testIdPrefix}-page`}>
      <Typography.Title heading={4} className="mg-task-title">
        {title}
      </Typography.Title>
      {banner}
      <TaskFilterBar
        filters={filters}
        admin={admin}
        searching={list.isFetching}
        testIdPrefix={testIdPrefix}
        onSubmit={(next) => {
          if (!applyFilters(next)) void list.refetch();
        }}
        onReset={reset}
      />
      <Table<Row>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isLoading}
        size="small"
        scroll={narrow ? undefined : { x: tableWidth(columns) }}
        empty={<Empty description={empty} />}
        onRow={(row) => ({ 'data-testid': row ? `${testIdPrefix}-row-${row.id}` : undefined }) as object}
        pagination={pagination}
      />
      {children}
    </div>
  );
}

import { Empty, Table, Typography } from '@douyinfe/semi-ui';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionRoles } from '../../lib/session';
import type { AsyncTask } from './api';
import { ContentDialog, type DialogContent } from './components/content-dialog';
import { SunoDialog } from './components/suno-dialog';
import { taskColumns } from './components/task-columns';
import { tableWidth } from './components/task-cells';
import { TaskFilterBar } from './components/task-filter-bar';
import { useTaskList } from './queries';
import type { SunoResult } from './suno-result';
import { useTaskSearch } from './use-task-search';
import './tasks.css';
import { useTablePagination } from '../../components/shared/table-pagination';
import { useNarrowScreen } from '../../lib/use-narrow-screen';

/** /task: the caller's async tasks (Suno music and lyrics); an admin's: everyone's, with channels. */
export default function TasksPage() {
  const { t } = useTranslation('tasks');
  const { admin } = useSessionRoles();
  const { filters, query, page, pageSize, applyFilters, setPage, setPageSize, reset } = useTaskSearch('task');
  const list = useTaskList({ ...query, page, pageSize, admin });
  const [content, setContent] = useState<DialogContent | null>(null);
  const [suno, setSuno] = useState<SunoResult | null>(null);

  const narrow = useNarrowScreen();
  const columns = useMemo(() => taskColumns({ t, admin, narrow, onText: (title, text) => setContent({ title, text }), onSuno: setSuno }), [t, admin, narrow]);

  const pagination = useTablePagination({ page, pageSize, total: list.data?.total ?? 0, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-page mg-task-page" data-testid="task-page">
      <Typography.Title heading={4} className="mg-task-title">
        {t('title')}
      </Typography.Title>
      <TaskFilterBar
        filters={filters}
        admin={admin}
        searching={list.isFetching}
        testIdPrefix="task"
        onSubmit={(next) => {
          if (!applyFilters(next)) void list.refetch();
        }}
        onReset={reset}
      />
      <Table<AsyncTask>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isLoading}
        size="small"
        scroll={narrow ? undefined : { x: tableWidth(columns) }}
        empty={<Empty description={t('empty')} />}
        onRow={(row) => ({ 'data-testid': row ? `task-row-${row.id}` : undefined }) as object}
        pagination={pagination}
      />
      <ContentDialog content={content} onClose={() => setContent(null)} />
      <SunoDialog result={suno} onClose={() => setSuno(null)} />
    </div>
  );
}

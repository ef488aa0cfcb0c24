import { Banner, Empty, Table, Typography } from '@douyinfe/semi-ui';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionRoles } from '../../lib/session';
import { useStatus } from '../status/queries';
import { ContentDialog, type DialogContent } from '../tasks/components/content-dialog';
import { tableWidth } from '../tasks/components/task-cells';
import { TaskFilterBar } from '../tasks/components/task-filter-bar';
import { useTaskSearch } from '../tasks/use-task-search';
import type { DrawingTask } from './api';
import { drawingColumns } from './components/drawing-columns';
import { DrawingViewer } from './components/drawing-viewer';
import { useDrawingList } from './queries';
import '../tasks/tasks.css';
import { useTablePagination } from '../../components/shared/table-pagination';
import { useNarrowScreen } from '../../lib/use-narrow-screen';

/** /midjourney: the caller's drawings (an admin's: everyone's, with channel and submit result). */
export default function MidjourneyPage() {
  const { t } = useTranslation('midjourney');
  const { admin } = useSessionRoles();
  const status = useStatus();
  const { filters, query, page, pageSize, applyFilters, setPage, setPageSize, reset } = useTaskSearch('drawing');
  const list = useDrawingList({ ...query, page, pageSize, admin });
  const [content, setContent] = useState<DialogContent | null>(null);
  const [drawing, setDrawing] = useState<DrawingTask | null>(null);

  const narrow = useNarrowScreen();
  const columns = useMemo(
    () => drawingColumns({ t, admin, narrow, onText: (title, text) => setContent({ title, text }), onImage: setDrawing }),
    [t, admin, narrow],
  );

  const pagination = useTablePagination({ page, pageSize, total: list.data?.total ?? 0, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-page mg-task-page" data-testid="mj-page">
      <Typography.Title heading={4} className="mg-task-title">
        {t('title')}
      </Typography.Title>
      {admin && status.mj_notify_enabled !== true && <Banner type="info" className="mg-task-banner" description={t('notifyOff')} data-testid="mj-notify-off" />}
      <TaskFilterBar
        filters={filters}
        admin={admin}
        searching={list.isFetching}
        testIdPrefix="mj"
        onSubmit={(next) => {
          if (!applyFilters(next)) void list.refetch();
        }}
        onReset={reset}
      />
      <Table<DrawingTask>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isLoading}
        size="small"
        scroll={narrow ? undefined : { x: tableWidth(columns) }}
        empty={<Empty description={t('empty')} />}
        onRow={(row) => ({ 'data-testid': row ? `mj-row-${row.id}` : undefined }) as object}
        pagination={pagination}
      />
      <ContentDialog content={content} onClose={() => setContent(null)} />
      <DrawingViewer drawing={drawing} onClose={() => setDrawing(null)} />
    </div>
  );
}

import { Banner } from '@douyinfe/semi-ui';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionRoles } from '../../lib/session';
import { useStatus } from '../status/queries';
import { ContentDialog, type DialogContent } from '../tasks/components/content-dialog';
import { TaskListScreen } from '../tasks/components/task-list-screen';
import { useTaskSearch } from '../tasks/use-task-search';
import type { DrawingTask } from './api';
import { drawingColumns } from './components/drawing-columns';
import { DrawingViewer } from './components/drawing-viewer';
import { useDrawingList } from './queries';
import '../tasks/tasks.css';
import { useNarrowScreen } from '../../lib/use-narrow-screen';

/** /midjourney: the caller's drawings (an admin's: everyone's, with channel and submit result). */
export default function MidjourneyPage() {
  const { t } = useTranslation('midjourney');
  const { admin } = useSessionRoles();
  const status = useStatus();
  const search = useTaskSearch('drawing');
  const list = useDrawingList({ ...search.query, page: search.page, pageSize: search.pageSize, admin });
  const [content, setContent] = useState<DialogContent | null>(null);
  const [drawing, setDrawing] = useState<DrawingTask | null>(null);

  const narrow = useNarrowScreen();
  const columns = useMemo(
    () => drawingColumns({ t, admin, narrow, onText: (title, text) => setContent({ title, text }), onImage: setDrawing }),
    [t, admin, narrow],
  );

  return (
    <TaskListScreen
      testIdPrefix="mj"
      title={t('title')}
      banner={
        admin && status.mj_notify_enabled !== true && <Banner type="info" className="mg-task-banner" description={t('notifyOff')} data-testid="mj-notify-off" />
      }
      search={search}
      admin={admin}
      list={list}
      columns={columns}
      narrow={narrow}
      empty={t('empty')}
    >
      <ContentDialog content={content} onClose={() => setContent(null)} />
      <DrawingViewer drawing={drawing} onClose={() => setDrawing(null)} />
    </TaskListScreen>
  );
}

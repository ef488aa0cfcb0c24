import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionRoles } from '../../lib/session';
import { ContentDialog, type DialogContent } from './components/content-dialog';
import { SunoDialog } from './components/suno-dialog';
import { taskColumns } from './components/task-columns';
import { TaskListScreen } from './components/task-list-screen';
import { useTaskList } from './queries';
import type { SunoResult } from './suno-result';
import { useTaskSearch } from './use-task-search';
import './tasks.css';
import { useNarrowScreen } from '../../lib/use-narrow-screen';

/** /task: the caller's async tasks (Suno music and lyrics); an admin's: everyone's, with channels. */
export default function TasksPage() {
  const { t } = useTranslation('tasks');
  const { admin } = useSessionRoles();
  const search = useTaskSearch('task');
  const list = useTaskList({ ...search.query, page: search.page, pageSize: search.pageSize, admin });
  const [content, setContent] = useState<DialogContent | null>(null);
  const [suno, setSuno] = useState<SunoResult | null>(null);

  const narrow = useNarrowScreen();
  const columns = useMemo(() => taskColumns({ t, admin, narrow, onText: (title, text) => setContent({ title, text }), onSuno: setSuno }), [t, admin, narrow]);

  return (
    <TaskListScreen testIdPrefix="task" title={t('title')} search={search} admin={admin} list={list} columns={columns} narrow={narrow} empty={t('empty')}>
      <ContentDialog content={content} onClose={() => setContent(null)} />
      <SunoDialog result={suno} onClose={() => setSuno(null)} />
    </TaskListScreen>
  );
}

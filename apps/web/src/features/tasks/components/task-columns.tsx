import { Tag, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import type { TFunction } from 'i18next';
import { DateTimeCell } from '../../../components/shared/date-time-cell';
import { columnsForScreen } from '../../../components/shared/table-columns';
import type { AsyncTask } from '../api';
import { sunoResult, taskActionTag, type SunoResult } from '../suno-result';
import { ChannelCell, DurationCell, ProgressCell, StatusCell, TaskIdCell, TextCell } from './task-cells';

interface ColumnContext {
  t: TFunction<'tasks'>;
  admin: boolean;
  /** Phones: the time, the status and the details. */
  narrow: boolean;
  onText: (title: string, text: string) => void;
  onSuno: (result: SunoResult) => void;
}

function PlatformTag({ platform, t }: { platform: string; t: TFunction<'tasks'> }) {
  if (platform === 'suno') {
    return (
      <Tag color="green" shape="circle">
        {t('platforms.suno')}
      </Tag>
    );
  }
  return (
    <Tag color="white" shape="circle">
      {platform || t('platforms.unknown')}
    </Tag>
  );
}

/** The details cell: a finished Suno task opens its songs or lyrics; otherwise the fail reason. */
function DetailsCell({ row, t, onText, onSuno }: { row: AsyncTask } & Omit<ColumnContext, 'admin' | 'narrow'>) {
  if (row.platform === 'suno' && row.status === 'SUCCESS') {
    const result = sunoResult(row.data);
    if (result.kind !== 'none') {
      return (
        <Typography.Text link onClick={() => onSuno(result)} data-testid={`task-suno-${row.id}`}>
          {result.kind === 'clips' ? t('suno.previewMusic') : t('suno.viewLyrics')}
        </Typography.Text>
      );
    }
  }
  return <TextCell text={row.fail_reason} onOpen={() => onText(t('dialog.failReason'), row.fail_reason)} testId={`task-fail-${row.id}`} />;
}

const PHONE_COLUMNS = ['submit_time', 'status', 'fail_reason'];

/** new-api's task columns; the channel column is an admin's only. */
export function taskColumns(context: ColumnContext): ColumnProps<AsyncTask>[] {
  return columnsForScreen(allColumns(context), context.narrow, PHONE_COLUMNS);
}

function allColumns({ t, admin, onText, onSuno }: ColumnContext): ColumnProps<AsyncTask>[] {
  const columns: (ColumnProps<AsyncTask> | false)[] = [
    { title: t('columns.submitTime'), dataIndex: 'submit_time', width: 104, render: (_, row) => <DateTimeCell seconds={row.submit_time} /> },
    { title: t('columns.finishTime'), dataIndex: 'finish_time', width: 104, render: (_, row) => <DateTimeCell seconds={row.finish_time} /> },
    {
      title: t('columns.duration'),
      dataIndex: 'start_time',
      width: 100,
      render: (_, row) => <DurationCell submit={row.submit_time} finish={row.finish_time} unit="s" testId={`task-duration-${row.id}`} />,
    },
    admin && { title: t('columns.channel'), dataIndex: 'channel_id', width: 90, render: (_, row) => <ChannelCell channelId={row.channel_id} /> },
    { title: t('columns.platform'), dataIndex: 'platform', width: 100, render: (_, row) => <PlatformTag platform={row.platform} t={t} /> },
    {
      title: t('columns.type'),
      dataIndex: 'action',
      width: 125,
      render: (_, row) => {
        const tag = taskActionTag(row.action);
        return (
          <Tag color={tag.colour} shape="circle">
            {t(`actions.${tag.key}`)}
          </Tag>
        );
      },
    },
    {
      title: t('columns.taskId'),
      dataIndex: 'task_id',
      width: 150,
      render: (_, row) => (
        <TaskIdCell id={row.task_id} testId={`task-copy-${row.id}`} onOpen={() => onText(t('dialog.record'), JSON.stringify(row, null, 2))} />
      ),
    },
    { title: t('columns.status'), dataIndex: 'status', width: 90, render: (_, row) => <StatusCell status={row.status} /> },
    { title: t('columns.progress'), dataIndex: 'progress', width: 130, render: (_, row) => <ProgressCell progress={row.progress} status={row.status} /> },
    {
      title: t('columns.details'),
      dataIndex: 'fail_reason',
      width: 130,
      fixed: 'right',
      render: (_, row) => <DetailsCell row={row} t={t} onText={onText} onSuno={onSuno} />,
    },
  ];
  return columns.filter((column): column is ColumnProps<AsyncTask> => column !== false);
}

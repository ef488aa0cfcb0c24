import { Button, Tag } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import type { TFunction } from 'i18next';
import { DateTimeCell } from '../../../components/shared/date-time-cell';
import { columnsForScreen } from '../../../components/shared/table-columns';
import { ChannelCell, DurationCell, ProgressCell, StatusCell, TaskIdCell, TextCell } from '../../tasks/components/task-cells';
import type { DrawingTask } from '../api';
import { drawingActionTag, submitCodeTag } from '../drawing-rules';

interface ColumnContext {
  t: TFunction<'midjourney'>;
  admin: boolean;
  /** Phones: the time, the status and the picture. */
  narrow: boolean;
  onText: (title: string, text: string) => void;
  onImage: (row: DrawingTask) => void;
}

/** new-api's drawing columns; the channel and submit-result columns are an admin's only. */
const PHONE_COLUMNS = ['submit_time', 'status', 'image_url'];

export function drawingColumns(context: ColumnContext): ColumnProps<DrawingTask>[] {
  return columnsForScreen(allColumns(context), context.narrow, PHONE_COLUMNS);
}

function allColumns({ t, admin, narrow, onText, onImage }: ColumnContext): ColumnProps<DrawingTask>[] {
  const columns: (ColumnProps<DrawingTask> | false)[] = [
    {
      title: t('columns.submitTime'),
      dataIndex: 'submit_time',
      width: 104,
      render: (_, row) => <DateTimeCell seconds={Math.floor(row.submit_time / 1000)} />,
    },
    {
      title: t('columns.duration'),
      dataIndex: 'finish_time',
      width: 80,
      render: (_, row) => <DurationCell submit={row.submit_time} finish={row.finish_time} unit="ms" testId={`mj-duration-${row.id}`} />,
    },
    admin && { title: t('columns.channel'), dataIndex: 'channel_id', width: 64, render: (_, row) => <ChannelCell channelId={row.channel_id} /> },
    {
      title: t('columns.type'),
      dataIndex: 'action',
      width: 96,
      render: (_, row) => {
        const tag = drawingActionTag(row.action);
        return (
          <Tag color={tag.colour} shape="circle">
            {t(`actions.${tag.key}`)}
          </Tag>
        );
      },
    },
    { title: t('columns.taskId'), dataIndex: 'mj_id', width: 116, render: (_, row) => <TaskIdCell id={row.mj_id} testId={`mj-copy-${row.id}`} /> },
    admin && {
      title: t('columns.code'),
      dataIndex: 'code',
      width: 90,
      render: (_, row) => {
        const tag = submitCodeTag(row.code);
        return (
          <Tag color={tag.colour} shape="circle">
            {t(`codes.${tag.key}`)}
          </Tag>
        );
      },
    },
    {
      title: t('columns.status'),
      dataIndex: 'status',
      width: 90,
      render: (_, row) =>
        // Phones have no fail-reason column: a failed drawing says why under its status.
        narrow && row.fail_reason ? (
          <span className="mg-task-status-reason">
            <StatusCell status={row.status} />
            <TextCell text={row.fail_reason} onOpen={() => onText(t('columns.failReason'), row.fail_reason)} />
          </span>
        ) : (
          <StatusCell status={row.status} />
        ),
    },
    { title: t('columns.progress'), dataIndex: 'progress', width: 100, render: (_, row) => <ProgressCell progress={row.progress} status={row.status} /> },
    {
      title: t('columns.image'),
      dataIndex: 'image_url',
      width: 100,
      render: (_, row) =>
        row.image_url ? (
          <Button size="small" onClick={() => onImage(row)} data-testid={`mj-image-${row.id}`}>
            {t('viewImage')}
          </Button>
        ) : (
          <span className="mg-task-none">-</span>
        ),
    },
    {
      title: t('columns.prompt'),
      dataIndex: 'prompt',
      width: 96,
      // An ellipsis column makes Semi lay the table out fixed: the widths hold and long texts end in "…".
      ellipsis: true,
      render: (_, row) => <TextCell text={row.prompt} onOpen={() => onText(t('columns.prompt'), row.prompt)} testId={`mj-prompt-${row.id}`} />,
    },
    {
      title: t('columns.promptEn'),
      dataIndex: 'prompt_en',
      width: 96,
      ellipsis: true,
      render: (_, row) => <TextCell text={row.prompt_en} onOpen={() => onText(t('columns.promptEn'), row.prompt_en)} />,
    },
    {
      title: t('columns.failReason'),
      dataIndex: 'fail_reason',
      width: 112,
      ellipsis: true,
      render: (_, row) => <TextCell text={row.fail_reason} onOpen={() => onText(t('columns.failReason'), row.fail_reason)} testId={`mj-fail-${row.id}`} />,
    },
  ];
  return columns.filter((column): column is ColumnProps<DrawingTask> => column !== false);
}

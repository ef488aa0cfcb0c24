import { Progress, Tag, Typography } from '@douyinfe/semi-ui';
import { IconCopy } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../../lib/clipboard';
import { channelColour, durationColour, durationSeconds, progressPercent, statusTag } from '../task-rules';

/** Cells both task tables share. */

/** The scroll width of a table whose columns all say how wide they are. */
export function tableWidth(columns: ReadonlyArray<{ width?: string | number }>): number {
  return columns.reduce((sum, column) => sum + (Number(column.width) || 0), 0);
}

export function StatusCell({ status }: { status: string }) {
  const { t } = useTranslation('tasks');
  const tag = statusTag(status);
  return (
    <Tag color={tag.colour} shape="circle">
      {t(`status.${tag.key}`)}
    </Tag>
  );
}

export function ProgressCell({ progress, status }: { progress: string; status: string }) {
  const percent = progressPercent(progress);
  if (percent === null) return <span>{progress || '-'}</span>;
  return (
    <Progress
      percent={percent}
      showInfo
      stroke={status === 'FAILURE' ? 'var(--semi-color-warning)' : undefined}
      aria-label="progress"
      style={{ minWidth: 90 }}
    />
  );
}

export function DurationCell({ submit, finish, unit, testId }: { submit: number; finish: number; unit: 'ms' | 's'; testId?: string }) {
  const { t } = useTranslation('tasks');
  const seconds = durationSeconds(submit, finish, unit);
  if (seconds === null) return <span>-</span>;
  return (
    <Tag color={durationColour(seconds)} shape="circle" data-testid={testId}>
      {t('row.seconds', { value: seconds })}
    </Tag>
  );
}

export function ChannelCell({ channelId }: { channelId: number }) {
  if (!channelId) return null;
  return (
    <Tag color={channelColour(channelId)} shape="circle">
      #{channelId}
    </Tag>
  );
}

/** The task id with its copy button (spec: copy task id). */
export function TaskIdCell({ id, testId, onOpen }: { id: string; testId?: string; onOpen?: () => void }) {
  const { t } = useTranslation('tasks');
  if (!id) return <span>-</span>;
  return (
    <span className="mg-task-id">
      <Typography.Text link={!!onOpen} onClick={onOpen} ellipsis={{ showTooltip: true }} style={{ maxWidth: 130 }}>
        {id}
      </Typography.Text>
      <IconCopy
        className="mg-task-copy"
        role="button"
        aria-label={t('row.copyId')}
        tabIndex={0}
        onClick={() => void copyWithFeedback(id, t('row.idCopied'))}
        data-testid={testId}
      />
    </span>
  );
}

/** A long text shown on one line; a click opens it whole. */
export function TextCell({ text, onOpen, testId }: { text: string; onOpen: () => void; testId?: string }) {
  const { t } = useTranslation('tasks');
  if (!text) return <span className="mg-task-none">{t('row.none')}</span>;
  return (
    <Typography.Text link ellipsis={{ showTooltip: false }} style={{ maxWidth: 110 }} onClick={onOpen} data-testid={testId}>
      {text}
    </Typography.Text>
  );
}

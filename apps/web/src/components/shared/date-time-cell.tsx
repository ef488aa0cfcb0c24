import { formatTimestamp } from '../../lib/date-time';

/** A table's timestamp as date over time, so the column needs a date's width, not a date-time's. */
export function DateTimeCell({ seconds, testId }: { seconds: number; testId?: string }) {
  const [date, time] = formatTimestamp(seconds).split(' ');
  return (
    <span className="mg-date-time" data-testid={testId}>
      <span>{date}</span>
      {/* Not shown between the stacked lines, but keeps the copied text a date-time. */}
      {time && ' '}
      {time && <span className="mg-date-time-clock">{time}</span>}
    </span>
  );
}

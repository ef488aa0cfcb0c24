const pad = (value: number) => String(value).padStart(2, '0');

/** A Date as local "yyyy-MM-dd HH:mm:ss", the console's date format (spec 02 §5). */
export function formatDateTime(date: Date): string {
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` + `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** Unix seconds in the console's date format; 0 (never set) shows as '-'. */
export function formatTimestamp(seconds: number): string {
  if (!seconds) return '-';
  return formatDateTime(new Date(seconds * 1000));
}

const DATE_TIME = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2}))?)?$/;

/**
 * Parses local "yyyy-MM-dd HH:mm:ss" (seconds or the whole time may be left out) into Unix
 * seconds; null when the text is not such a date or names a day that does not exist (2024-02-31).
 */
export function parseDateTime(text: string): number | null {
  const match = DATE_TIME.exec(text.trim());
  if (!match) return null;
  const [year, month, day, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  const date = new Date(year, month - 1, day, hours, minutes, seconds);
  const sameFields =
    date.getFullYear() === year &&
    date.getMonth() === month - 1 &&
    date.getDate() === day &&
    date.getHours() === hours &&
    date.getMinutes() === minutes &&
    date.getSeconds() === seconds;
  return sameFields ? Math.floor(date.getTime() / 1000) : null;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** Unix seconds as local "yyyy-MM-dd HH:mm:ss", the console's date format; 0 means "never". */
export function formatTimestamp(seconds: number): string {
  if (!seconds) return '-';
  const date = new Date(seconds * 1000);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** The clipboard text for a set of codes: one "name    key" line each, as new-api's console copies them. */
export function codesAsText(rows: ReadonlyArray<{ name: string; key: string }>): string {
  return rows.map((row) => `${row.name}    ${row.key}`).join('\n');
}

/** The clipboard text for a set of codes: one "name    key" line each, as new-api's console copies them. */
export function codesAsText(rows: ReadonlyArray<{ name: string; key: string }>): string {
  return rows.map((row) => `${row.name}    ${row.key}`).join('\n');
}

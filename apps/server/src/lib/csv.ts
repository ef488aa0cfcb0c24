/**
 * CSV text as RFC 4180 writes it: fields separated by commas, records ended by CRLF, a field
 * holding a comma, a double quote, CR or LF wrapped in double quotes with its quotes doubled.
 */

/** Put first in a file so Excel reads it as UTF-8 (Chinese text otherwise opens garbled). */
export const UTF8_BOM = '\uFEFF';

/** A field as RFC 4180 writes it: quoted only when it has to be. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * A text cell a spreadsheet will not run as a formula (OWASP's CSV injection advice): one that
 * starts with = + - @, a tab or a carriage return gets a leading apostrophe. For text columns
 * only: a number column's `-5` stays a number.
 */
export function guardFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** One record, CRLF included; `text` cells are guarded, the others written as they are. */
export function csvRecord(cells: readonly (string | number)[], text: readonly boolean[]): string {
  return `${cells.map((cell, index) => csvField(text[index] ? guardFormula(String(cell)) : String(cell))).join(',')}\r\n`;
}

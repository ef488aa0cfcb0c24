/** Reading a CSV download as it arrives (no imports: unit-tested without the console around it). */

const QUOTE = 0x22;
const LF = 0x0a;

/**
 * Counts the records of RFC 4180 CSV as its bytes arrive: a line feed ends a record unless it is
 * inside quotes (a doubled quote toggles twice, so it leaves the state as it was).
 */
export class CsvRecordCounter {
  records = 0;
  private quoted = false;

  push(bytes: Uint8Array): void {
    let { quoted, records } = this;
    for (let index = 0; index < bytes.length; index += 1) {
      const byte = bytes[index];
      if (byte === QUOTE) quoted = !quoted;
      else if (byte === LF && !quoted) records += 1;
    }
    this.quoted = quoted;
    this.records = records;
  }
}

/** `filename="..."` of a Content-Disposition, or the fallback. */
export function attachmentName(header: string | null, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(header ?? '');
  return match?.[1] ?? fallback;
}

import { describe, expect, it } from 'vitest';
import { attachmentName, CsvRecordCounter } from './csv-records';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('CsvRecordCounter', () => {
  it('counts records, not line feeds inside quoted fields, across chunk boundaries', () => {
    const csv = '\uFEFFid,content\r\n1,"two\r\nlines"\r\n2,"say ""hi"", ok"\r\n3,plain\r\n';
    const whole = new CsvRecordCounter();
    whole.push(bytes(csv));
    expect(whole.records).toBe(4);
    // Split at every position: a quote or CRLF cut in two changes nothing.
    for (let cut = 0; cut <= csv.length; cut += 1) {
      const split = new CsvRecordCounter();
      split.push(bytes(csv.slice(0, cut)));
      split.push(bytes(csv.slice(cut)));
      expect(split.records, String(cut)).toBe(4);
    }
  });
});

describe('attachmentName', () => {
  it("reads the server's file name, or falls back", () => {
    expect(attachmentName('attachment; filename="logs-20261129-091500.csv"', 'logs.csv')).toBe('logs-20261129-091500.csv');
    expect(attachmentName(null, 'logs.csv')).toBe('logs.csv');
  });
});

import { api } from '../../lib/api-client';
import { filterQuery, type LogFilters } from './api';
import { attachmentName, CsvRecordCounter } from './csv-records';

export interface ExportProgress {
  /** Data rows received so far (the header not counted). */
  rows: number;
  /** The server's count for the filters (X-Total-Count), taken before the first row. */
  total: number;
  bytes: number;
}

/**
 * Downloads the logs the filters select as CSV (GET /api/log/export or /api/log/self/export),
 * reading the body as it streams and reporting rows of the server's total; answers the file.
 * Aborting the signal cancels the download (the server stops reading too).
 */
export async function downloadLogsCsv(
  filters: LogFilters,
  admin: boolean,
  language: string,
  onProgress: (progress: ExportProgress) => void,
  signal: AbortSignal,
): Promise<{ file: Blob; name: string; rows: number }> {
  const response = await api.download(admin ? '/api/log/export' : '/api/log/self/export', {
    query: { ...filterQuery(filters, admin), lang: language.startsWith('zh') ? 'zh' : 'en' },
    signal,
  });
  const total = Number(response.headers.get('X-Total-Count')) || 0;
  const chunks: Uint8Array[] = [];
  const counter = new CsvRecordCounter();
  let bytes = 0;
  onProgress({ rows: 0, total, bytes });
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      counter.push(value);
      bytes += value.length;
      onProgress({ rows: Math.max(0, counter.records - 1), total, bytes });
    }
  }
  const rows = Math.max(0, counter.records - 1);
  return {
    file: new Blob(chunks as BlobPart[], { type: 'text/csv;charset=utf-8' }),
    name: attachmentName(response.headers.get('Content-Disposition'), 'logs.csv'),
    rows,
  };
}

/** Hands a file to the browser's downloads, under its name. */
export function saveFile(file: Blob, name: string): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The click has started the download; the URL can go once the browser has read it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

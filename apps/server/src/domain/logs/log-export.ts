import { LogType, type WireLog } from '@modelgate/contract';
import { type Selectable, sql } from 'kysely';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../../db/index.js';
import type { LogsTable } from '../../db/schema.js';
import { csvRecord, UTF8_BOM } from '../../lib/csv.js';
import { listConditions, LogQuery, toWireLog, type LogFilter } from './log-query.js';

/** Rows read per query: a page is formatted and written before the next is read. */
export const EXPORT_PAGE_ROWS = 2_000;

/** Rows per chunk written: a chunk is formatted without a pause, so it stays small (tens of KB). */
const CHUNK_ROWS = 250;

export type ExportLanguage = 'en' | 'zh';

/**
 * Every row the list's filters select, for a CSV export: counted with the list's own count,
 * read newest first in keyset pages (`id < last id`, so a page costs the same however deep),
 * with the list's own conditions.
 */
export class LogExport {
  private readonly query: LogQuery;
  constructor(private readonly db: Db) {
    this.query = new LogQuery(db);
  }

  /** The list's `total` for these filters (its count query; the one-row page beside it is cheap). */
  async count(filter: LogFilter): Promise<number> {
    return (await this.query.page(filter, { page: 1, pageSize: 1, offset: 0 })).total;
  }

  /**
   * The rows page by page, newest first; stops when the signal aborts (the client left). Between
   * pages it gives the event loop a turn, so a long export never holds it (SQLite reads block).
   */
  async *pages(filter: LogFilter, signal?: AbortSignal, pageRows = EXPORT_PAGE_ROWS): AsyncGenerator<Selectable<LogsTable>[]> {
    let before: number | undefined;
    const window = await this.sqliteRangeWindow(filter);
    if (window === null) return;
    const conditionsFilter = window ? { ...filter, startTimestamp: 0, endTimestamp: 0 } : filter;
    if (window) before = window.last + 1;
    while (!signal?.aborted) {
      const rows = await this.db.kysely
        .selectFrom('logs')
        .selectAll()
        .where((eb) => {
          const conditions = [listConditions(eb, conditionsFilter, this.db.dialect)];
          if (window) {
            // The range as plain filters (`+created_at`, which SQLite matches to no index) and its ids as the walk's floor.
            if (filter.startTimestamp !== 0) conditions.push(eb(sql`+created_at`, '>=', filter.startTimestamp));
            if (filter.endTimestamp !== 0) conditions.push(eb(sql`+created_at`, '<=', filter.endTimestamp));
            conditions.push(eb('id', '>=', window.first));
          }
          if (before !== undefined) conditions.push(eb('id', '<', before));
          return eb.and(conditions);
        })
        .orderBy('id', 'desc')
        .limit(pageRows)
        .execute();
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < pageRows) return;
      before = Number(rows[rows.length - 1]!.id);
      await nextTurn();
    }
  }

  /**
   * On SQLite, a time range's keyset pages would each read the whole range from the created_at
   * index and sort it (no statistics: it prefers that index to the id order), so an export would
   * cost pages x range. Instead the range's first and last ids are read once from that index and
   * the pages walk the ids between them, the range checked on each row. `null`: the range is
   * empty; undefined: not SQLite or no range (PostgreSQL and MySQL choose well on their own).
   */
  private async sqliteRangeWindow(filter: LogFilter): Promise<{ first: number; last: number } | null | undefined> {
    if (this.db.dialect !== 'sqlite' || (filter.startTimestamp === 0 && filter.endTimestamp === 0)) return undefined;
    const bounds = await this.db.kysely
      .selectFrom('logs')
      .select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
      .where((eb) => {
        const conditions = [];
        if (filter.startTimestamp !== 0) conditions.push(eb('created_at', '>=', filter.startTimestamp));
        if (filter.endTimestamp !== 0) conditions.push(eb('created_at', '<=', filter.endTimestamp));
        return eb.and(conditions);
      })
      .executeTakeFirst();
    if (bounds?.first === null || bounds?.first === undefined) return null;
    return { first: Number(bounds.first), last: Number(bounds.last) };
  }
}

export interface LogCsvOptions {
  /** An administrator's export: the channel columns and other.admin_info. */
  admin: boolean;
  language: ExportLanguage;
  /** Set when the console shows amounts in currency (DisplayInCurrencyEnabled): adds the cost in USD. */
  quotaPerUnit?: number;
}

interface Column {
  en: string;
  zh: string;
  /** Text a spreadsheet could read as a formula: guarded. Numbers are written as they are. */
  text: boolean;
  value: (row: WireLog, options: LogCsvOptions) => string | number;
}

const TYPE_NAMES: Record<number, { en: string; zh: string }> = {
  [LogType.TopUp]: { en: 'top-up', zh: '充值' },
  [LogType.Consume]: { en: 'consume', zh: '消费' },
  [LogType.Manage]: { en: 'manage', zh: '管理' },
  [LogType.System]: { en: 'system', zh: '系统' },
  [LogType.Error]: { en: 'error', zh: '错误' },
};

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export const utcTime = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

const text = (en: string, zh: string, value: Column['value']): Column => ({ en, zh, text: true, value });
const number = (en: string, zh: string, value: Column['value']): Column => ({ en, zh, text: false, value });

function columnsOf(options: LogCsvOptions): Column[] {
  return [
    number('id', 'ID', (row) => row.id),
    number('time (UTC)', '时间（UTC）', (row) => utcTime(row.created_at)),
    number('timestamp', '时间戳', (row) => row.created_at),
    text('type', '类型', (row, { language }) => TYPE_NAMES[row.type]?.[language] ?? String(row.type)),
    text('username', '用户名', (row) => row.username),
    text('token_name', '令牌名称', (row) => row.token_name),
    text('model_name', '模型名称', (row) => row.model_name),
    text('group', '分组', (row) => row.group),
    ...(options.admin ? [number('channel_id', '渠道 ID', (row) => row.channel), text('channel_name', '渠道名称', (row) => row.channel_name)] : []),
    number('prompt_tokens', '提示 Tokens', (row) => row.prompt_tokens),
    number('completion_tokens', '补全 Tokens', (row) => row.completion_tokens),
    number('quota', '额度', (row) => row.quota),
    ...(options.quotaPerUnit ? [number('cost (USD)', '花费（美元）', (row, { quotaPerUnit }) => (row.quota / quotaPerUnit!).toFixed(6))] : []),
    number('use_time (s)', '用时（秒）', (row) => row.use_time),
    text('is_stream', '流式', (row, { language }) => (row.is_stream ? (language === 'zh' ? '是' : 'yes') : language === 'zh' ? '否' : 'no')),
    text('ip', 'IP', (row) => row.ip),
    text('content', '内容', (row) => row.content),
    text('other', '其他', (row) => row.other),
  ];
}

/**
 * The CSV file of an export, chunk by chunk: the BOM and the header first (so the answer starts at
 * once), then the rows, CHUNK_ROWS to a chunk. A user's rows lose other.admin_info, as in its list.
 */
export async function* logCsv(pages: AsyncIterable<Selectable<LogsTable>[]>, options: LogCsvOptions): AsyncGenerator<Buffer> {
  const columns = columnsOf(options);
  const textColumns = columns.map((column) => column.text);
  yield Buffer.from(
    UTF8_BOM +
      csvRecord(
        columns.map((column) => column[options.language]),
        textColumns,
      ),
  );
  for await (const rows of pages) {
    // A page is written in slices, each past the stream's buffer mark: the stream waits for the
    // reader between them, so formatting a page never holds the event loop for long.
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
      let chunk = '';
      for (const row of rows.slice(start, start + CHUNK_ROWS)) {
        const wire = toWireLog(row, options.admin);
        chunk += csvRecord(
          columns.map((column) => column.value(wire, options)),
          textColumns,
        );
      }
      yield Buffer.from(chunk);
    }
  }
}

/** Bytes buffered ahead of the reader: past them the next page is not read until the reader drains. */
const STREAM_BUFFER_BYTES = 64 * 1024;

/**
 * The export as a byte stream with backpressure: a page is read from the database only when the
 * reader has taken the bytes before it (at most one page ahead), so memory stays bounded whatever
 * the row count. Destroying the stream, or the signal, ends the reading.
 */
export function logCsvStream(exporter: LogExport, filter: LogFilter, options: LogCsvOptions, signal?: AbortSignal): Readable {
  return Readable.from(logCsv(exporter.pages(filter, signal), options), { objectMode: false, highWaterMark: STREAM_BUFFER_BYTES });
}

import type { QuotaDataRow } from '@modelgate/contract';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { HourTotals, QuotaDataExport } from './quota-data-export.js';

/** Whose usage the dashboard shows: everyone's summed per model and hour, one username's rows, or one user's. */
export type ChartScope = { kind: 'all' } | { kind: 'username'; username: string } | { kind: 'user'; userId: number };

const DAY_SECONDS = 86_400;
/** The kept days' text at most, in bytes: about a hundred days of a 50-model chart. */
const KEPT_BYTES = 16 * 1024 * 1024;
/** Ranges of more whole days than this are read in one piece, not day by day (an administrator may ask for any span). */
const MAX_KEPT_SPAN_DAYS = 400;

/**
 * The dashboard's rows (new-api's QuotaData: id, user_id, username, model_name, created_at,
 * token_used, count, quota; sums over all users carry id, user_id and username zeroed), ordered by
 * hour and model, as the JSON text of an array: quota_data (or its per-model sums,
 * quota_data_models) plus this node's sums not yet exported (QuotaDataExport.unexported), so a call
 * shows within seconds rather than after the next export.
 *
 * A month of an administrator's chart is 720 hours × the models: tens of thousands of rows, several
 * megabytes. The stored hours before the first one this node still holds sums of (the current one,
 * usually) are read as JSON text: on SQLite built by the database itself (storedJson). For the
 * all-users chart each whole UTC day of them is kept in memory with the day's revision
 * (quota_data_days, which every node's usage export raises in the transaction that writes to the
 * day), and read again only once the revision has moved: a month is then one small query and the
 * text of the days written to since. The hours from the first one this node holds sums of are read
 * as objects and merged with the sums.
 */
export class UsageChart {
  /** Whole days of the all-users chart: the revision read before their rows, and the rows' JSON (no brackets) in UTF-8. Oldest use first. */
  private readonly days = new Map<number, { revision: number; json: Buffer }>();
  private keptBytes = 0;

  constructor(
    private readonly db: Db,
    private readonly usage: Pick<QuotaDataExport, 'unexported'>,
  ) {}

  /**
   * The chart as the chunks of one JSON array's text, to be sent as they are: a month of the
   * all-users chart is megabytes, which joined as one string were copied again to be measured and
   * again to be encoded for the socket; its whole days are kept encoded.
   */
  async json(scope: ChartScope, start: number, end: number): Promise<Buffer[]> {
    const { db, usage } = this;
    const keep = (entry: HourTotals) => entry.createdAt >= start && entry.createdAt <= end && inScope(scope, entry);
    let cut = end + 1;
    for (const entry of usage.unexported()) if (keep(entry) && entry.createdAt < cut) cut = entry.createdAt;
    // Every sum of an hour before `cut` is stored (a sum leaves memory only once its write committed).
    const headEnd = Math.min(end, cut - 1);
    const head = cut <= start ? [] : scope.kind === 'all' ? await this.storedAllParts(start, headEnd) : [await storedJson(db, scope, start, headEnd)];
    if (cut > end) return jsonArray(head);
    // The stored rows are read before the sums in memory: sums written meanwhile leave memory only after their write commits.
    const rows = await storedRows(db, scope, cut, end);
    const pending = usage.unexported().filter(keep);
    // A sum for an hour before the cut appears only if the clock went back: read the whole range as objects.
    if (pending.some((entry) => entry.createdAt < cut)) {
      return [Buffer.from(JSON.stringify(withUnexported(await storedRows(db, scope, start, end), pending, scope)))];
    }
    const tail = JSON.stringify(withUnexported(rows, pending, scope)).slice(1, -1);
    return jsonArray([...head, tail]);
  }

  /** The all-users rows in [from, to] as parts of the inside of a JSON array: whole UTC days kept by revision, the edges read. */
  private async storedAllParts(from: number, to: number): Promise<(Buffer | string)[]> {
    const all: ChartScope = { kind: 'all' };
    const firstDay = Math.ceil(from / DAY_SECONDS) * DAY_SECONDS;
    const daysEnd = Math.floor((to + 1) / DAY_SECONDS) * DAY_SECONDS;
    const wholeDays = (daysEnd - firstDay) / DAY_SECONDS;
    if (wholeDays < 1 || wholeDays > MAX_KEPT_SPAN_DAYS) return [await storedJson(this.db, all, from, to)];
    // Revisions first: rows read after them are at least as new, so a kept day is never older than its revision says.
    const revisions = new Map<number, number>();
    for (const row of await this.db.kysely
      .selectFrom('quota_data_days')
      .select(['day', 'revision'])
      .where('day', '>=', firstDay)
      .where('day', '<', daysEnd)
      .execute()) {
      revisions.set(Number(row.day), Number(row.revision));
    }
    const parts: (Buffer | string)[] = [from < firstDay ? await storedJson(this.db, all, from, firstDay - 1) : ''];
    // Kept days are taken now, before any wait: another chart's days may take their place meanwhile.
    const texts = new Map<number, Buffer>();
    const missing: number[] = [];
    for (let day = firstDay; day < daysEnd; day += DAY_SECONDS) {
      const kept = this.days.get(day);
      if (kept !== undefined && kept.revision === (revisions.get(day) ?? 0)) texts.set(day, this.touch(day, kept));
      else missing.push(day);
    }
    for (const [day, json] of await this.readDays(missing)) {
      const encoded = Buffer.from(json);
      this.remember(day, revisions.get(day) ?? 0, encoded);
      texts.set(day, encoded);
    }
    for (let day = firstDay; day < daysEnd; day += DAY_SECONDS) parts.push(texts.get(day)!);
    if (daysEnd <= to) parts.push(await storedJson(this.db, all, daysEnd, to));
    return parts;
  }

  /** Each listed day's all-users rows as JSON text. SQLite writes each day's text itself; the others read the days' rows in one query. */
  private async readDays(days: readonly number[]): Promise<Map<number, string>> {
    const texts = new Map<number, string>();
    if (days.length === 0) return texts;
    const all: ChartScope = { kind: 'all' };
    if (this.db.dialect === 'sqlite') {
      for (const day of days) texts.set(day, await storedJson(this.db, all, day, day + DAY_SECONDS - 1));
      return texts;
    }
    const byDay = new Map<number, QuotaDataRow[]>(days.map((day) => [day, []]));
    for (const row of await storedRows(this.db, all, days[0]!, days.at(-1)! + DAY_SECONDS - 1)) {
      byDay.get(Math.floor(row.created_at / DAY_SECONDS) * DAY_SECONDS)?.push(row);
    }
    for (const [day, rows] of byDay) texts.set(day, JSON.stringify(rows).slice(1, -1));
    return texts;
  }

  private remember(day: number, revision: number, json: Buffer): void {
    const known = this.days.get(day);
    if (known !== undefined) {
      this.keptBytes -= known.json.length;
      this.days.delete(day);
    }
    this.days.set(day, { revision, json });
    this.keptBytes += json.length;
    for (const [oldest, kept] of this.days) {
      if (this.keptBytes <= KEPT_BYTES) break;
      this.days.delete(oldest);
      this.keptBytes -= kept.json.length;
    }
  }

  /** A kept day's text, its entry moved to the most recently used end. */
  private touch(day: number, kept: { revision: number; json: Buffer }): Buffer {
    this.days.delete(day);
    this.days.set(day, kept);
    return kept.json;
  }
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** A JSON array's text in chunks, from parts of its inside (each some elements, or empty). */
function jsonArray(parts: readonly (Buffer | string)[]): Buffer[] {
  const chunks: Buffer[] = [OPEN];
  for (const part of parts) {
    if (part.length === 0) continue;
    if (chunks.length > 1) chunks.push(COMMA);
    chunks.push(typeof part === 'string' ? Buffer.from(part) : part);
  }
  chunks.push(CLOSE);
  return chunks;
}

function inScope(scope: ChartScope, entry: HourTotals): boolean {
  if (scope.kind === 'username') return entry.username === scope.username;
  if (scope.kind === 'user') return entry.userId === scope.userId;
  return true;
}

/** The stored rows of the scope: the per-model sums for all users, else the users' rows, and the condition that picks them. */
function scopeSource(scope: ChartScope): { table: RawBuilder<unknown>; where: RawBuilder<unknown> } {
  if (scope.kind === 'all') return { table: sql.table('quota_data_models'), where: sql`` };
  return {
    table: sql.table('quota_data'),
    where: scope.kind === 'username' ? sql`${sql.ref('username')} = ${scope.username} and ` : sql`${sql.ref('user_id')} = ${scope.userId} and `,
  };
}

/** The stored rows of the scope in [from, to] as objects, by hour and model. */
async function storedRows(db: Db, scope: ChartScope, from: number, to: number): Promise<QuotaDataRow[]> {
  const { table, where } = scopeSource(scope);
  const { rows } = await sql<Record<string, unknown>>`select * from ${table}
    where ${where}${sql.ref('created_at')} >= ${from} and ${sql.ref('created_at')} <= ${to}
    order by ${sql.ref('created_at')}, ${sql.ref('model_name')}`.execute(db.kysely);
  return rows.map((row) => toItem(row));
}

/**
 * The stored rows of the scope in [from, to] as the inside of a JSON array (no brackets). SQLite
 * builds the text itself (one row, one string: 30 ms for 36,000 rows where reading them as objects
 * and serializing them took 95); PostgreSQL's string building is slower than its rows (format or
 * json_agg over 36,000 rows 120-150 ms against 60 ms read by the driver), and MySQL/MariaDB cap an
 * aggregate at group_concat_max_len (1 MB by default), so there the rows are read as objects.
 */
async function storedJson(db: Db, scope: ChartScope, from: number, to: number): Promise<string> {
  if (db.dialect !== 'sqlite') return JSON.stringify(await storedRows(db, scope, from, to)).slice(1, -1);
  const summed = scope.kind === 'all';
  const fields: [string, RawBuilder<unknown>][] = [
    ['id', summed ? sql`0` : sql.ref('id')],
    ['user_id', summed ? sql`0` : sql.ref('user_id')],
    ['username', summed ? sql`''` : sql.ref('username')],
    ['model_name', sql.ref('model_name')],
    ['created_at', sql.ref('created_at')],
    ['token_used', sql.ref('token_used')],
    ['count', sql.ref('count')],
    ['quota', sql.ref('quota')],
  ];
  // json_object escapes the names as JSON.stringify does; the keys in new-api's order.
  const object = sql`json_object(${sql.join(fields.map(([key, value]) => sql`${sql.lit(key)}, ${value}`))})`;
  const { table, where } = scopeSource(scope);
  const { rows } = await sql<{ body: string | null }>`select group_concat(${object}, ',' order by created_at, model_name) as body
    from ${table} where ${where}created_at >= ${from} and created_at <= ${to}`.execute(db.kysely);
  return rows[0]?.body ?? '';
}

// Sums over all users carry id, user_id and username zeroed.
const toItem = (row: Record<string, unknown>): QuotaDataRow => ({
  id: Number(row.id ?? 0),
  user_id: Number(row.user_id ?? 0),
  username: String(row.username ?? ''),
  model_name: String(row.model_name),
  created_at: Number(row.created_at),
  token_used: Number(row.token_used),
  count: Number(row.count),
  quota: Number(row.quota),
});

/**
 * Adds this node's sums not yet exported to the stored rows: a row of the same key (model and hour,
 * and user when not summed) grows, a new key is a new row.
 */
function withUnexported(rows: QuotaDataRow[], pending: HourTotals[], scope: ChartScope): QuotaDataRow[] {
  if (pending.length === 0) return rows;
  const summed = scope.kind === 'all';
  const keyOf = (row: QuotaDataRow) => (summed ? `${row.model_name}\u0000${row.created_at}` : `${row.user_id}\u0000${row.model_name}\u0000${row.created_at}`);
  const byKey = new Map(rows.map((row) => [keyOf(row), row]));
  for (const entry of pending) {
    const extra: QuotaDataRow = {
      id: 0,
      user_id: summed ? 0 : entry.userId,
      username: summed ? '' : entry.username,
      model_name: entry.modelName,
      created_at: entry.createdAt,
      token_used: entry.tokenUsed,
      count: entry.count,
      quota: entry.quota,
    };
    const row = byKey.get(keyOf(extra));
    if (row) {
      row.token_used += extra.token_used;
      row.count += extra.count;
      row.quota += extra.quota;
    } else {
      byKey.set(keyOf(extra), extra);
      rows.push(extra);
    }
  }
  return rows.sort((a, b) => a.created_at - b.created_at || (a.model_name < b.model_name ? -1 : a.model_name > b.model_name ? 1 : 0));
}

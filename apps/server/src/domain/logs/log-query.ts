import { LogType, type LogStat, type WireLog } from '@modelgate/contract';
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Db, DialectName } from '../../db/index.js';
import type { Database, LogsTable } from '../../db/schema.js';
import { like, likePrefix } from '../../lib/like-pattern.js';
import type { Paging } from '../../lib/paging.js';
import { type LogTotals, totalsFromRollups } from './log-counts.js';
import { hideAdminInfo } from './log-visibility.js';

/** The log list's filters, as new-api's GetAllLogs / GetUserLogs read them (0 or '' = no filter). */
export interface LogFilter {
  /** Set for a user's own logs: nothing else can widen the rows past this user. */
  userId?: number;
  type: number;
  username: string;
  tokenName: string;
  /** new-api matches it with LIKE, so `gpt-4%` lists every gpt-4 variant. */
  modelName: string;
  startTimestamp: number;
  endTimestamp: number;
  channel: number;
  group: string;
}

/** A filter whose model pattern is resolved to the names it matches (counts and sums only). */
interface AggregateFilter extends LogFilter {
  modelNames?: string[];
}

/** Past this many matching names a pattern stays a LIKE (IN lists have parameter limits). */
const MAX_PATTERN_NAMES = 1_000;

/** new-api's common.MaxRecentItems: the search and the public key lookup return this many rows. */
export const MAX_RECENT_ITEMS = 100;

/** Up to this many rows in a time range are sorted rather than found by walking the id order. */
const SORTED_RANGE_ROWS = 50_000;

type LogRow = Selectable<LogsTable>;
type Where = ExpressionBuilder<Database, 'logs'>;

export function toWireLog(row: LogRow, asAdmin: boolean): WireLog {
  const { channel_id: channel, ...rest } = row;
  return {
    ...rest,
    id: Number(row.id),
    user_id: Number(row.user_id),
    created_at: Number(row.created_at),
    type: Number(row.type),
    quota: Number(row.quota),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    use_time: Number(row.use_time),
    is_stream: Number(row.is_stream) === 1,
    channel: Number(channel),
    token_id: Number(row.token_id),
    other: asAdmin ? row.other : hideAdminInfo(row.other),
  };
}

/**
 * A column as a condition names it. `hidden` (SQLite only) writes it as `+column`, which SQLite's
 * planner does not match to an index: without statistics it prefers any index with an equality
 * over a range, so `type = 2 and created_at >= ?` would walk every consume row of the type index
 * instead of the range. PostgreSQL and MySQL estimate both from statistics and see the plain name.
 */
type Column = 'user_id' | 'username' | 'token_name' | 'model_name' | 'channel_id' | 'group' | 'type';
const columnRef = (name: Column, hidden: boolean) => (hidden ? sql<string | number>`+${sql.ref(name)}` : sql.ref<string | number>(name));

/** Every filter except type and time, which the list and the stat apply differently. */
function commonConditions(eb: Where, filter: AggregateFilter, hidden = false) {
  const column = (name: Column) => columnRef(name, hidden);
  const conditions = [];
  if (filter.userId !== undefined) conditions.push(eb(column('user_id'), '=', filter.userId));
  if (filter.username !== '') conditions.push(eb(column('username'), '=', filter.username));
  if (filter.tokenName !== '') conditions.push(eb(column('token_name'), '=', filter.tokenName));
  if (filter.modelNames !== undefined) {
    conditions.push(filter.modelNames.length === 0 ? sql<boolean>`1 = 0` : eb(column('model_name'), 'in', filter.modelNames));
  } else if (filter.modelName !== '') {
    // Without `%` an equality, which the model_name index serves directly (new-api's LIKE gives
    // the same rows except on PostgreSQL's case rules); a `%` pattern keeps new-api's wildcards.
    const pattern = filter.modelName.includes('%');
    conditions.push(eb(column('model_name'), pattern ? 'like' : '=', filter.modelName));
  }
  if (filter.channel !== 0) conditions.push(eb(column('channel_id'), '=', filter.channel));
  if (filter.group !== '') conditions.push(eb(column('group'), '=', filter.group));
  return conditions;
}

const hasTimeRange = (filter: LogFilter) => filter.startTimestamp !== 0 || filter.endTimestamp !== 0;

function timeConditions(eb: Where, filter: LogFilter) {
  const conditions = [];
  if (filter.startTimestamp !== 0) conditions.push(eb('created_at', '>=', filter.startTimestamp));
  if (filter.endTimestamp !== 0) conditions.push(eb('created_at', '<=', filter.endTimestamp));
  return conditions;
}

/**
 * The type condition beside a time range: on SQLite hidden from the planner, so the range is read
 * from (created_at, type, quota) rather than every row of the type from (type, id, ...).
 */
const typeCondition = (eb: Where, type: number, filter: LogFilter, dialect: DialectName) =>
  eb(columnRef('type', dialect === 'sqlite' && hasTimeRange(filter)), '=', type);

/**
 * `shortRange`: the time range is short (a rollup's edge, at most an hour), and on SQLite the other
 * filters are hidden so the range is read from the created_at index rather than every row of, say,
 * a busy user through the user's index.
 */
export function listConditions(eb: Where, filter: AggregateFilter, dialect: DialectName, shortRange = false) {
  const conditions = [...commonConditions(eb, filter, shortRange && dialect === 'sqlite'), ...timeConditions(eb, filter)];
  if (filter.type !== LogType.Unknown) conditions.push(typeCondition(eb, filter.type, filter, dialect));
  return eb.and(conditions);
}

export class LogQuery {
  constructor(private readonly db: Db) {}

  async page(filter: LogFilter, paging: Paging): Promise<{ items: LogRow[]; total: number }> {
    const db = this.db.kysely;
    const counting = await this.forAggregates(filter);
    const total = ((await totalsFromRollups(this.db, counting, filter.type, this.rawTotals)) ?? (await this.rawTotals(counting, filter.type))).count;
    // A pattern's page walks the newest rows with the LIKE; with nothing to find it would walk all.
    if (total === 0) return { items: [], total };
    // Ids and times grow together, which the planners do not know: for an old time range they walk
    // the primary key down from the newest row, through everything newer than the range (seconds on
    // a large table). When the range holds few rows, `id + 0` hides the key order so they read the
    // range from the created_at index and sort its ids instead. A range that reaches the newest log
    // and holds the whole page is walked newest first all the same: the walk starts inside it and
    // stops at the page's last row (sorting would read every row of the range: 42 ms against 0.9
    // for a user's model over 7 days of 1,000,000 logs on SQLite).
    const sorted = hasTimeRange(filter) && total <= SORTED_RANGE_ROWS && !(total >= paging.offset + paging.pageSize && (await this.reachesNewest(filter)));
    const newestFirst = sorted ? sql`id + 0` : sql`id`;
    // The page's ids first, then its rows: the ids come from an index alone, so a time range or a
    // deep page sorts and skips ids instead of whole rows. (`in` rather than a join: SQLite may
    // reorder a join to scan the whole table; the derived table is for MySQL, which refuses LIMIT
    // directly inside IN.)
    const items = await db
      .selectFrom('logs')
      .selectAll()
      .where('id', 'in', (eb) =>
        eb
          .selectFrom(
            eb
              .selectFrom('logs')
              .select('id')
              .where((inner) => listConditions(inner, filter, this.db.dialect))
              .orderBy(newestFirst, 'desc')
              .limit(paging.pageSize)
              .offset(paging.offset)
              .as('page'),
          )
          .select('page.id'),
      )
      .orderBy('id', 'desc')
      .execute();
    return { items, total };
  }

  /** Whether the filter's time range takes in the newest log (no end, or an end at or after it). */
  private async reachesNewest(filter: LogFilter): Promise<boolean> {
    if (filter.endTimestamp === 0) return true;
    const newest = await this.db.kysely.selectFrom('logs').select('created_at').orderBy('id', 'desc').limit(1).executeTakeFirst();
    return newest === undefined || filter.endTimestamp >= Number(newest.created_at);
  }

  /**
   * A `%` pattern as the model names it matches, for counts and sums. LIKE uses no index, so a
   * count with `model_name like 'gpt-4%'` reads every row; instead the distinct names are read
   * from the model_name index one probe each (a skip scan: a gateway logs tens to hundreds of
   * names), the database's own LIKE keeps those that match, and the count or sum reads only their
   * ranges of the covering index. The same rows, chosen by the same LIKE.
   */
  private async forAggregates(filter: LogFilter): Promise<AggregateFilter> {
    if (!filter.modelName.includes('%')) return filter;
    const { rows } = await sql<{ name: string }>`with recursive names (name) as (
        select min(model_name) from logs
        union all
        select (select min(model_name) from logs where model_name > names.name) from names where names.name is not null
      ) select name from names where name like ${filter.modelName}`.execute(this.db.kysely);
    return rows.length > MAX_PATTERN_NAMES ? filter : { ...filter, modelNames: rows.map((row) => row.name) };
  }

  /**
   * new-api's SumUsedQuota: quota over the consume rows the filters select (the type parameter
   * is ignored: only consumption has a cost), rpm and tpm over the consume rows of the last 60 s
   * with the same filters but not the time range.
   */
  async stat(filter: LogFilter, now = Math.floor(Date.now() / 1000)): Promise<LogStat> {
    const db = this.db.kysely;
    const sqlite = this.db.dialect === 'sqlite';
    const summing = await this.forAggregates(filter);
    const [spent, recent] = await Promise.all([
      totalsFromRollups(this.db, summing, LogType.Consume, this.rawTotals).then(async (totals) => totals ?? this.rawConsumeQuota(summing)),
      // The last minute is a short range of the created_at index whatever the other filters
      // select; SQLite is told so by hiding the rest (it would otherwise walk a filter's rows).
      db
        .selectFrom('logs')
        .select([(eb) => eb.fn.countAll<number>().as('rpm'), sql<number | string | null>`sum(prompt_tokens) + sum(completion_tokens)`.as('tpm')])
        .where((eb) => eb.and([...commonConditions(eb, filter, sqlite), eb(columnRef('type', sqlite), '=', LogType.Consume), eb('created_at', '>=', now - 60)]))
        .executeTakeFirst(),
    ]);
    return { quota: spent.quota, rpm: Number(recent?.rpm ?? 0), tpm: Number(recent?.tpm ?? 0) };
  }

  /** The count and quota of the rows a filter selects with `type` (0: every type), read from the logs (the rollups' edges, the filters they do not cover). */
  private readonly rawTotals = async (filter: AggregateFilter, type: number, short = false): Promise<LogTotals> => {
    const row = await this.db.kysely
      .selectFrom('logs')
      .select([(eb) => eb.fn.countAll<number>().as('count'), sql<number | string | null>`sum(quota)`.as('quota')])
      .where((eb) => listConditions(eb, { ...filter, type }, this.db.dialect, short))
      .executeTakeFirst();
    return { count: Number(row?.count ?? 0), quota: Number(row?.quota ?? 0) };
  };

  /**
   * The consume rows' quota for a filter the rollups do not cover. Every column it reads is in each
   * filter's covering index (migration 007): an index-only sum. Nearly every row is a consume row,
   * so SQLite is kept from choosing the type index over the filter's own (or the time range's).
   */
  private async rawConsumeQuota(filter: AggregateFilter): Promise<LogTotals> {
    const sqlite = this.db.dialect === 'sqlite';
    const row = await this.db.kysely
      .selectFrom('logs')
      .select(sql<number | string | null>`sum(quota)`.as('quota'))
      .where((eb) => eb.and([...commonConditions(eb, filter), ...timeConditions(eb, filter), eb(columnRef('type', sqlite), '=', LogType.Consume)]))
      .executeTakeFirst();
    return { count: 0, quota: Number(row?.quota ?? 0) };
  }

  /**
   * new-api's log search: an admin's keyword is a log type or the start of the content; a
   * user's is a log type within its own rows. The newest MAX_RECENT_ITEMS rows.
   */
  async search(keyword: string, userId?: number): Promise<LogRow[]> {
    const type = /^\d{1,9}$/.test(keyword) ? Number(keyword) : undefined;
    if (userId !== undefined && type === undefined) return [];
    return this.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where((eb) => {
        if (userId !== undefined) return eb.and([eb('user_id', '=', userId), eb('type', '=', type ?? -1)]);
        const contentPrefix = like('content', likePrefix(keyword));
        return type === undefined ? contentPrefix : eb.or([eb('type', '=', type), contentPrefix]);
      })
      .orderBy('id', 'desc')
      .limit(MAX_RECENT_ITEMS)
      .execute();
  }

  /** The newest logs of one API key (new-api's public lookup); undefined when no token has this key. */
  async byTokenKey(key: string): Promise<LogRow[] | undefined> {
    const token = await this.db.kysely.selectFrom('tokens').select('id').where('key', '=', key).executeTakeFirst();
    if (!token) return undefined;
    return this.db.kysely.selectFrom('logs').selectAll().where('token_id', '=', Number(token.id)).orderBy('id', 'desc').limit(MAX_RECENT_ITEMS).execute();
  }
}

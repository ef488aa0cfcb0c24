import type { Statement } from 'better-sqlite3';
import { MysqlAdapter, type QueryExecutorProvider, sql, type Kysely } from 'kysely';
import type { DialectName } from './db-types.js';
import type { Database } from './schema.js';

/**
 * log_rollups (migration 018): the logs' counts and quota sums per time bucket, log type and one
 * of a few filter dimensions ("grains"), so the log screen's totals and the stat's sum at ten
 * million rows read hundreds of rollup rows instead of millions of logs. Kept exact: every write
 * that adds or removes logs changes the rollups in the same transaction (the batch flush, the
 * account-event and key-view rows, clearing and retention, a dropped month partition), and what
 * imports rows wholesale rebuilds them. domain/logs/log-counts.ts reads them: whole buckets from
 * here, the partial buckets at a range's edges from the logs themselves.
 *
 * A grain keys its rows by (id_key, name_key, model_key), each unused part 0 or '', per UTC hour:
 *
 *   All        nothing            no filter, a type, a time range
 *   User       user_id, username  a user's own logs; an admin's username filter
 *   Token      token_name
 *   Model      model_name         an exact name, or the names a % pattern matches
 *   Channel    channel_id
 *   Group      group
 *   UserModel  user_id, username, model_name
 *
 * Hours, not days, for every grain: a range's partial buckets at its edges are read from the logs,
 * and an hour of logs is a short range of their time index whatever the filter (a day of a busy
 * user's rows, found through its user index, took 70 to 120 ms on SQLite at 10,000,000 logs).
 */

export const RollupGrain = { All: 0, User: 1, Token: 2, Model: 3, Channel: 4, Group: 5, UserModel: 6 } as const;
export type RollupGrainValue = (typeof RollupGrain)[keyof typeof RollupGrain];

/** The rollups' bucket: an hour, in seconds. */
export const BUCKET_SECONDS = 3_600;

const GRAINS = Object.values(RollupGrain);

/** What a rollup needs of a log row. */
export interface RollupSource {
  created_at: number;
  type: number;
  user_id: number;
  username: string;
  token_name: string;
  model_name: string;
  channel_id: number;
  group: string;
  quota: number;
}

/**
 * Each grain's key columns over a log row (id_key, name_key, model_key); null: the constant 0 or ''.
 * The writers (rollupDeltas) and the rebuild's GROUP BY read the same table.
 */
type KeyColumn = 'user_id' | 'username' | 'token_name' | 'model_name' | 'channel_id' | 'group';
const GRAIN_COLUMNS: Record<RollupGrainValue, [idKey: 'user_id' | 'channel_id' | null, nameKey: KeyColumn | null, modelKey: 'model_name' | null]> = {
  [RollupGrain.All]: [null, null, null],
  [RollupGrain.User]: ['user_id', 'username', null],
  [RollupGrain.Token]: [null, 'token_name', null],
  [RollupGrain.Model]: [null, 'model_name', null],
  [RollupGrain.Channel]: ['channel_id', null, null],
  [RollupGrain.Group]: [null, 'group', null],
  [RollupGrain.UserModel]: ['user_id', 'username', 'model_name'],
};

/**
 * The bucket a time falls in. Truncation, as SQL's `%` does, so the migration's and the
 * rebuild's GROUP BY agree with what the writers add.
 */
export const bucketOf = (at: number): number => at - (at % BUCKET_SECONDS);

interface Delta {
  grain: number;
  bucket: number;
  type: number;
  id_key: number;
  name_key: string;
  model_key: string;
  log_count: number;
  quota: number;
}

/**
 * The source rows summed per rollup key, times `sign` (+1 added, -1 removed). The rows are first
 * summed per hour and whole key (one map entry per row: a busy node's flush is thousands of rows
 * of few users and models), then those sums spread over the grains.
 */
export function rollupDeltas(rows: readonly RollupSource[], sign: 1 | -1 = 1): Delta[] {
  const tuples = new Map<string, { row: RollupSource; count: number; quota: number }>();
  for (const row of rows) {
    const hour = bucketOf(Number(row.created_at));
    // \u0000 cannot appear in a name the API accepts, so the joined key is unambiguous.
    const key = `${hour}\u0000${row.type}\u0000${row.user_id}\u0000${row.username}\u0000${row.token_name}\u0000${row.model_name}\u0000${row.channel_id}\u0000${row.group}`;
    const known = tuples.get(key);
    if (known) {
      known.count += 1;
      known.quota += Number(row.quota);
    } else {
      tuples.set(key, { row: { ...row, created_at: hour }, count: 1, quota: Number(row.quota) });
    }
  }
  const deltas = new Map<string, Delta>();
  for (const { row, count, quota } of tuples.values()) {
    const type = Number(row.type);
    for (const grain of GRAINS) {
      const [idColumn, nameColumn, modelColumn] = GRAIN_COLUMNS[grain];
      const idKey = idColumn ? Number(row[idColumn]) : 0;
      const nameKey = nameColumn ? String(row[nameColumn]) : '';
      const modelKey = modelColumn ? row[modelColumn] : '';
      const bucket = row.created_at;
      const key = `${grain}\u0000${bucket}\u0000${type}\u0000${idKey}\u0000${nameKey}\u0000${modelKey}`;
      const known = deltas.get(key);
      if (known) {
        known.log_count += count * sign;
        known.quota += quota * sign;
      } else {
        deltas.set(key, { grain, bucket, type, id_key: idKey, name_key: nameKey, model_key: modelKey, log_count: count * sign, quota: quota * sign });
      }
    }
  }
  return [...deltas.values()];
}

/** The primary key's columns (migration 018), in its order. */
const KEY_COLUMNS = ['id_key', 'grain', 'name_key', 'model_key', 'type', 'bucket'] as const;

/** Rollup rows per multi-row statement: 8 parameters each, far below every dialect's limit. */
const ROWS_PER_STATEMENT = 100;

const isMysqlExecutor = (executor: Kysely<Database>): boolean => executor.getExecutor().adapter instanceof MysqlAdapter;

/**
 * Adds (or, with sign -1, takes away) the rows' counts and quota in the caller's transaction.
 * Keys brought to zero by a removal are deleted, so cleared months leave nothing behind.
 */
export async function applyLogRollups(executor: Kysely<Database>, rows: readonly RollupSource[], sign: 1 | -1 = 1): Promise<void> {
  if (rows.length === 0) return;
  const deltas = rollupDeltas(rows, sign);
  const mysql = isMysqlExecutor(executor);
  for (let start = 0; start < deltas.length; start += ROWS_PER_STATEMENT) {
    const chunk = deltas.slice(start, start + ROWS_PER_STATEMENT);
    const insert = executor.insertInto('log_rollups').values(chunk);
    await (mysql
      ? insert.onDuplicateKeyUpdate({ log_count: sql`log_count + values(log_count)`, quota: sql`quota + values(quota)` })
      : insert.onConflict((conflict) =>
          conflict.columns([...KEY_COLUMNS]).doUpdateSet({
            log_count: sql`log_rollups.log_count + excluded.log_count`,
            quota: sql`log_rollups.quota + excluded.quota`,
          }),
        )
    ).execute();
    if (sign > 0) continue;
    // A hundred keys per statement, each an equality on the whole primary key.
    await executor
      .deleteFrom('log_rollups')
      .where((eb) => eb.and([eb('log_count', '<=', 0), eb.or(chunk.map((delta) => eb.and(KEY_COLUMNS.map((column) => eb(column, '=', delta[column])))))]))
      .execute();
  }
}

/**
 * SQLite: the same with statements prepared once on the connection and run per key, as the log
 * rows themselves are written (log-buffer.ts). A busy node's flush of thousands of rows from a few
 * users and models touches tens of keys; a cleared batch of 200 rows a few hundred.
 */
export function sqliteRollupWriter(database: import('better-sqlite3').Database): (rows: readonly RollupSource[], sign?: 1 | -1) => void {
  let upsert: Statement | undefined;
  let removeEmpty: Statement | undefined;
  return (rows, sign = 1) => {
    upsert ??= database.prepare(
      `insert into log_rollups (grain, bucket, type, id_key, name_key, model_key, log_count, quota) values (?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (${KEY_COLUMNS.join(', ')}) do update set log_count = log_rollups.log_count + excluded.log_count, quota = log_rollups.quota + excluded.quota`,
    );
    for (const delta of rollupDeltas(rows, sign)) {
      upsert.run(delta.grain, delta.bucket, delta.type, delta.id_key, delta.name_key, delta.model_key, delta.log_count, delta.quota);
      if (sign > 0) continue;
      removeEmpty ??= database.prepare(`delete from log_rollups where ${KEY_COLUMNS.map((column) => `${column} = ?`).join(' and ')} and log_count <= 0`);
      removeEmpty.run(...KEY_COLUMNS.map((column) => delta[column]));
    }
  };
}

/**
 * Computes every rollup again from the logs (the migration, an import): everything the table
 * holds is replaced. One GROUP BY per grain, in the caller's transaction.
 */
export async function rebuildLogRollups(executor: QueryExecutorProvider, dialect: DialectName): Promise<void> {
  await sql`delete from log_rollups`.execute(executor);
  for (const grain of GRAINS) {
    const [idKey, nameKey, modelKey] = GRAIN_COLUMNS[grain];
    const bucket = sql`created_at - (created_at % ${sql.lit(BUCKET_SECONDS)})`;
    const keys = [idKey, nameKey, modelKey].filter((column): column is KeyColumn => column !== null).map((column) => sql.ref(column));
    // Constants stay out of the GROUP BY (SQLite reads an integer there as a column's position).
    const groupBy = sql.join([bucket, sql.ref('type'), ...keys]);
    // The cast keeps PostgreSQL's sum (numeric over bigint) a bigint.
    const sum = dialect === 'postgres' ? sql`coalesce(sum(quota), 0)::bigint` : sql`coalesce(sum(quota), 0)`;
    await sql`insert into log_rollups (grain, bucket, type, id_key, name_key, model_key, log_count, quota)
      select ${sql.lit(grain)}, ${bucket}, type, ${idKey ? sql.ref(idKey) : sql`0`}, ${nameKey ? sql.ref(nameKey) : sql`''`}, ${modelKey ? sql.ref(modelKey) : sql`''`}, count(*), ${sum}
      from logs group by ${groupBy}`.execute(executor);
  }
}

/** Takes away every bucket that starts in [from, to): a dropped partition's month (hours divide a month). */
export async function dropRollupRange(executor: QueryExecutorProvider, from: number, to: number): Promise<void> {
  await sql`delete from log_rollups where bucket >= ${from} and bucket < ${to}`.execute(executor);
}

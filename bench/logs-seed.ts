import { Role, UserStatus } from '@modelgate/contract';
import { sql } from 'kysely';
import type { Db } from '../apps/server/src/db/index.js';
import { createLogPartition, monthPartition } from '../apps/server/src/db/log-partitions.js';
import { rebuildLogRollups } from '../apps/server/src/db/log-rollups.js';
import { consumeLogRow } from '../apps/server/src/domain/logs/consume-log.js';
import { LOG_COLUMNS, type LogInsert } from '../apps/server/src/domain/logs/log-buffer.js';
import { hashPassword } from '../apps/server/src/domain/users/password.js';
import { UserService } from '../apps/server/src/domain/users/user-service.js';

/**
 * A large, realistic consume-log table for the logs bench: a few heavy users and many light ones,
 * a few popular models, tokens and channels, most calls in the default group, spread over 90 days
 * with ids growing with time as the relay's batched writes leave them. Deterministic (seeded PRNG),
 * so two runs measure the same table.
 */

export const SEED_USERS = 1_000;
export const SEED_TOKEN_NAMES = 200;
export const SEED_MODELS = 50;
export const SEED_CHANNELS = 20;
export const SEED_GROUPS = ['default', 'vip', 'svip', 'enterprise', 'trial'] as const;
const GROUP_WEIGHTS = [60, 20, 10, 7, 3];
export const SEED_DAYS = 90;
/** Every seeded user signs in with this password (root keeps 123456). */
export const SEED_PASSWORD = 'bench-password';

const REAL_MODELS = [
  'gpt-4o-mini',
  'gpt-4o',
  'claude-3-5-sonnet-20241022',
  'gpt-4.1-mini',
  'deepseek-chat',
  'gemini-2.0-flash',
  'gpt-4.1',
  'claude-3-5-haiku-20241022',
  'o3-mini',
  'qwen-max',
  'gpt-4-turbo',
  'gemini-1.5-pro',
];
export const modelName = (rank: number) => REAL_MODELS[rank] ?? `custom-model-${String(rank + 1).padStart(2, '0')}`;
export const userName = (rank: number) => `user-${String(rank + 1).padStart(4, '0')}`;
export const tokenName = (rank: number) => `key-${String(rank + 1).padStart(3, '0')}`;
export const channelName = (rank: number) => `channel-${String(rank + 1).padStart(2, '0')}`;

/** mulberry32: small, fast and good enough to pick ranks. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks rank r of n with probability proportional to weights[r]. */
function picker(weights: number[], next: () => number): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (const weight of weights) cumulative.push((sum += weight));
  return () => {
    const target = next() * sum;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! > target) high = middle;
      else low = middle + 1;
    }
    return low;
  };
}

const zipf = (count: number, exponent: number) => Array.from({ length: count }, (_, rank) => 1 / (rank + 1) ** exponent);

/** The seeded table's shape: what the cases filter on, and the ids the users got. */
export interface SeedPlan {
  rows: number;
  /** created_at of the first and the last row. */
  firstAt: number;
  lastAt: number;
  /** users.id of user rank r is userIds[r]. */
  userIds: number[];
}

/** Generates the rows in id order. */
export function* generateLogs(plan: SeedPlan): Generator<LogInsert> {
  const next = random(20_241_122);
  const user = picker(zipf(SEED_USERS, 1), next);
  const token = picker(zipf(SEED_TOKEN_NAMES, 1), next);
  const model = picker(zipf(SEED_MODELS, 1.1), next);
  const channel = picker(zipf(SEED_CHANNELS, 0.8), next);
  const group = picker(GROUP_WEIGHTS, next);
  const span = plan.lastAt - plan.firstAt;
  for (let index = 0; index < plan.rows; index += 1) {
    const userRank = user();
    const tokenRank = token();
    const modelRank = model();
    const channelRank = channel();
    const groupRank = group();
    const promptTokens = 20 + Math.floor(next() * next() * 6000);
    const completionTokens = Math.floor(next() * 1500);
    const modelRatio = [0.075, 1.25, 1.5, 0.2, 0.135][modelRank % 5]!;
    const groupRatio = [1, 0.9, 0.8, 0.7, 1.5][groupRank]!;
    yield consumeLogRow({
      createdAt: plan.firstAt + Math.floor((index * span) / Math.max(1, plan.rows - 1)),
      userId: plan.userIds[userRank]!,
      username: userName(userRank),
      tokenId: tokenRank + 1,
      tokenName: tokenName(tokenRank),
      model: modelName(modelRank),
      upstreamModel: modelName(modelRank),
      channelId: channelRank + 1,
      channelName: channelName(channelRank),
      group: SEED_GROUPS[groupRank]!,
      quota: Math.ceil((promptTokens + completionTokens * 4) * modelRatio * groupRatio),
      promptTokens,
      completionTokens,
      useTimeSeconds: 1 + Math.floor(next() * 20),
      isStream: next() < 0.6,
      pricing: { modelPrice: -1, modelRatio, completionRatio: 4, groupRatio },
      firstResponseMs: 200 + Math.floor(next() * 1800),
      triedChannelIds: [channelRank + 1],
      unpaidQuota: 0,
    });
  }
}

/** Root (root / 123456) and SEED_USERS common users (password SEED_PASSWORD); their ids by rank. */
export async function seedUsers(db: Db): Promise<number[]> {
  const service = new UserService(db);
  await service.ensureRootUser();
  const password = await hashPassword(SEED_PASSWORD);
  const ids: number[] = [];
  for (let rank = 0; rank < SEED_USERS; rank += 1) {
    ids.push(
      await service.repository.insert({
        username: userName(rank),
        password,
        role: Role.Common,
        status: UserStatus.Enabled,
        quota: 1_000_000_000,
        group: 'default',
      }),
    );
  }
  return ids;
}

/** The id the next inserted log will get (the table is fresh: ids follow insertion order). */
export async function nextLogId(db: Db): Promise<number> {
  const row = await db.kysely.selectFrom('logs').select(sql<number | null>`max(id)`.as('top')).executeTakeFirst();
  return Number(row?.top ?? 0) + 1;
}

/**
 * SQLite: one transaction, one prepared statement. The logs indexes are dropped for the load and
 * created again after it from their own SQL (one sorted build each instead of 10,000,000
 * insertions into nine B-trees, which with the default page cache rewrote the same pages into the
 * WAL over and over: 3 GB of WAL in the first 12 minutes), with a 1 GB page cache meanwhile.
 */
function insertSqlite(db: Db, rows: Iterable<LogInsert>, log: (message: string) => void): void {
  const sqlite = db.sqlite!;
  const indexes = sqlite.prepare(`select name, sql from sqlite_master where type = 'index' and tbl_name = 'logs' and sql is not null`).all() as {
    name: string;
    sql: string;
  }[];
  const cacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
  sqlite.pragma('cache_size = -1000000');
  for (const index of indexes) sqlite.exec(`drop index "${index.name}"`);
  const statement = sqlite.prepare(
    `insert into logs (${LOG_COLUMNS.map((column) => `"${column}"`).join(', ')}) values (${LOG_COLUMNS.map(() => '?').join(', ')})`,
  );
  const started = performance.now();
  sqlite.transaction(() => {
    for (const row of rows) statement.run(LOG_COLUMNS.map((column) => row[column]));
  })();
  log(`sqlite: rows loaded in ${((performance.now() - started) / 1000).toFixed(1)} s; building ${indexes.length} indexes`);
  for (const index of indexes) sqlite.exec(index.sql);
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.pragma(`cache_size = ${cacheSize}`);
}

const PG_BATCH = 10_000;
const TEXT_COLUMNS = new Set<string>(['content', 'username', 'token_name', 'model_name', 'channel_name', 'group', 'ip', 'other']);

/**
 * PostgreSQL: batches of PG_BATCH rows as one INSERT ... SELECT FROM unnest(column arrays), so a
 * batch binds one array per column instead of 18 parameters per row (the protocol's limit is 65,535).
 * One batch is in flight while the next is generated. The logs indexes are dropped for the load and
 * built again after it from their own definitions (as pg_restore does: one sorted build per index
 * instead of 10,000,000 insertions into each), and the month partitions the rows fall in are
 * created first, as the master would have created them ahead while the rows were written.
 */
async function insertPostgres(db: Db, plan: SeedPlan, rows: Iterable<LogInsert>, log: (message: string) => void): Promise<void> {
  for (let at = monthPartition(plan.firstAt).from; at <= plan.lastAt; at = monthPartition(at).to) {
    await createLogPartition(db.kysely, monthPartition(at));
  }
  await db.kysely.connection().execute(async (connection) => {
    const { rows: indexes } = await sql<{ name: string; definition: string }>`select i.relname as name, pg_get_indexdef(i.oid) as definition
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
      where t.relname = 'logs' and not x.indisprimary`.execute(connection);
    for (const index of indexes) await sql`drop index ${sql.ref(index.name)}`.execute(connection);
    const casts = LOG_COLUMNS.map((column) => (TEXT_COLUMNS.has(column) ? 'text[]' : 'int8[]'));
    const flush = async (batch: LogInsert[]) => {
      const arrays = LOG_COLUMNS.map((column) => batch.map((row) => row[column]));
      await sql`insert into logs (${sql.join(LOG_COLUMNS.map((column) => sql.ref(column)))})
        select * from unnest(${sql.join(arrays.map((values, index) => sql`${values}::${sql.raw(casts[index]!)}`))})`.execute(connection);
    };
    let inFlight: Promise<void> = Promise.resolve();
    let batch: LogInsert[] = [];
    const started = performance.now();
    for (const row of rows) {
      batch.push(row);
      if (batch.length === PG_BATCH) {
        await inFlight;
        inFlight = flush(batch);
        batch = [];
      }
    }
    await inFlight;
    if (batch.length > 0) await flush(batch);
    log(`postgres: rows loaded in ${((performance.now() - started) / 1000).toFixed(1)} s; building ${indexes.length} indexes`);
    await sql`set maintenance_work_mem = '256MB'`.execute(connection);
    // A partitioned table's index reads `ON ONLY logs` (the parent alone); built on the whole table here.
    for (const index of indexes) await sql.raw(index.definition.replace(' ON ONLY ', ' ON ')).execute(connection);
  });
}

/** Inserts the plan's rows, handing each to `visit` first; VACUUM ANALYZE on PostgreSQL after. */
export async function seedLogs(db: Db, plan: SeedPlan, visit: (row: LogInsert, id: number) => void, log: (message: string) => void = () => {}): Promise<void> {
  let id = await nextLogId(db);
  function* visited(): Generator<LogInsert> {
    for (const row of generateLogs(plan)) {
      visit(row, id);
      id += 1;
      yield row;
    }
  }
  if (db.dialect === 'sqlite') insertSqlite(db, visited(), log);
  else if (db.dialect === 'postgres') await insertPostgres(db, plan, visited(), log);
  else throw new Error(`the logs bench seeds SQLite and PostgreSQL, not ${db.dialect}`);
  // The rows were loaded beside the writers: their rollups are built once from them, as migration
  // 018 builds them for a table that already has logs.
  const started = performance.now();
  await db.kysely.transaction().execute((trx) => rebuildLogRollups(trx, db.dialect));
  const { rows: built } = await sql<{ n: number | string }>`select count(*) as n from log_rollups`.execute(db.kysely);
  log(`${db.dialect}: ${Number(built[0]?.n ?? 0).toLocaleString('en-US')} rollup rows built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // The dashboard's rows, as the usage export would have written them for these calls: per user,
  // model and hour, and per model and hour (migration 019).
  const charted = performance.now();
  const hour = sql`created_at - (created_at % 3600)`;
  const sum = (expression: ReturnType<typeof sql>) => (db.dialect === 'postgres' ? sql`sum(${expression})::bigint` : sql`sum(${expression})`);
  await sql`insert into quota_data (user_id, username, model_name, created_at, token_used, count, quota)
    select user_id, min(username), model_name, ${hour}, ${sum(sql`prompt_tokens + completion_tokens`)}, count(*), ${sum(sql`quota`)}
    from logs where type = 2 group by user_id, model_name, ${hour}`.execute(db.kysely);
  await sql`insert into quota_data_models (model_name, created_at, token_used, count, quota)
    select model_name, created_at, ${sum(sql`token_used`)}, ${sum(sql`count`)}, ${sum(sql`quota`)} from quota_data group by model_name, created_at`.execute(
    db.kysely,
  );
  const { rows: dashboard } = await sql<{ n: number | string }>`select count(*) as n from quota_data`.execute(db.kysely);
  log(`${db.dialect}: ${Number(dashboard[0]?.n ?? 0).toLocaleString('en-US')} dashboard rows built in ${((performance.now() - charted) / 1000).toFixed(1)} s`);
  if (db.dialect === 'postgres') {
    // What autovacuum does on a live table soon after a bulk load: the visibility map (for
    // index-only scans) and the planner's statistics.
    for (const table of ['logs', 'log_rollups', 'quota_data', 'quota_data_models']) await sql`vacuum analyze ${sql.table(table)}`.execute(db.kysely);
  }
}

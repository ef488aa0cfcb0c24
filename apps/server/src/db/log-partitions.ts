import { sql, type Kysely } from 'kysely';

/**
 * PostgreSQL's logs table is partitioned by `created_at` (migration 017): one partition per UTC
 * month, `logs_pYYYYMM`, holding [first second of the month, first second of the next), and
 * `logs_default` for any row outside them (an imported row from long ago, a clock far ahead), so
 * an insert never fails for want of a partition. The master creates the months ahead of time
 * (`ensureLogPartitions`, at start and hourly); retention and clearing drop whole months.
 */

/** Months created ahead of the current one. */
export const LOG_PARTITION_MONTHS_AHEAD = 3;

const PARTITION_NAME = /^logs_p(\d{4})(\d{2})$/;

export interface LogPartition {
  name: string;
  /** Inclusive lower and exclusive upper bound of created_at. */
  from: number;
  to: number;
}

/** The month partition that holds `at` (seconds). */
export function monthPartition(at: number): LogPartition {
  const date = new Date(at * 1000);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const from = Date.UTC(year, month, 1) / 1000;
  const to = Date.UTC(year, month + 1, 1) / 1000;
  return { name: `logs_p${year}${String(month + 1).padStart(2, '0')}`, from, to };
}

const partitionOfName = (name: string): LogPartition | undefined => {
  const match = PARTITION_NAME.exec(name);
  if (!match) return undefined;
  return monthPartition(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1) / 1000);
};

/** The month partitions of the logs table, oldest first (the default partition is not among them). */
export async function listLogPartitions<DB>(db: Kysely<DB>): Promise<LogPartition[]> {
  const { rows } = await sql<{ name: string }>`select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
    where p.relname = 'logs' and p.relnamespace = current_schema()::regnamespace`.execute(db);
  return rows
    .map((row) => partitionOfName(row.name))
    .filter((partition): partition is LogPartition => partition !== undefined)
    .sort((a, b) => a.from - b.from);
}

/**
 * Creates the month partition if it is missing. Rows of that month already in the default
 * partition (written while it was missing) move into it in the same transaction: PostgreSQL
 * refuses to attach a range the default partition holds rows of.
 */
export async function createLogPartition<DB>(db: Kysely<DB>, partition: LogPartition): Promise<boolean> {
  const existing = await listLogPartitions(db);
  if (existing.some((known) => known.name === partition.name)) return false;
  const table = sql.table(partition.name);
  const move = async (trx: Kysely<DB>) => {
    const stray = await sql`select 1 from logs_default where created_at >= ${partition.from} and created_at < ${partition.to} limit 1`.execute(trx);
    if (stray.rows.length === 0) {
      await sql`create table ${table} partition of logs for values from (${sql.lit(partition.from)}) to (${sql.lit(partition.to)})`.execute(trx);
      return;
    }
    await sql`create table ${table} (like logs including defaults)`.execute(trx);
    await sql`with moved as (delete from logs_default where created_at >= ${partition.from} and created_at < ${partition.to} returning *)
      insert into ${table} select * from moved`.execute(trx);
    await sql`alter table logs attach partition ${table} for values from (${sql.lit(partition.from)}) to (${sql.lit(partition.to)})`.execute(trx);
  };
  // A migration runs inside its own transaction already.
  if (db.isTransaction) await move(db);
  else await db.transaction().execute(move);
  return true;
}

/** The month partitions that the rows of `table` fall in (a full scan: for the migration and the default partition). */
export async function monthsHeldBy<DB>(db: Kysely<DB>, table: string): Promise<LogPartition[]> {
  const { rows } = await sql<{ month: string | null }>`select distinct to_char(to_timestamp(created_at) at time zone 'UTC', 'YYYY-MM') as month
    from ${sql.table(table)}`.execute(db);
  return rows
    .filter((row): row is { month: string } => row.month !== null)
    .map(({ month }) => {
      const [year, number] = month.split('-').map(Number) as [number, number];
      return monthPartition(Date.UTC(year, number - 1, 1) / 1000);
    });
}

/**
 * The current month's partition and LOG_PARTITION_MONTHS_AHEAD after it, and a partition for each
 * month the default partition holds rows of (rows imported from long ago, or written while their
 * month was missing), which takes those rows over. Answers the names it created.
 */
export async function ensureLogPartitions<DB>(db: Kysely<DB>, now = Math.floor(Date.now() / 1000)): Promise<string[]> {
  const created: string[] = [];
  let partition = monthPartition(now);
  const months: LogPartition[] = [];
  for (let month = 0; month <= LOG_PARTITION_MONTHS_AHEAD; month += 1) {
    months.push(partition);
    partition = monthPartition(partition.to);
  }
  for (const month of [...months, ...(await monthsHeldBy(db, 'logs_default'))]) {
    if (await createLogPartition(db, month)) created.push(month.name);
  }
  return created;
}

/**
 * MySQL/MariaDB (migration 020): the logs table is partitioned by RANGE (created_at): `logs_old`
 * below the first month, a partition per month named like PostgreSQL's (`logs_pYYYYMM`, holding
 * rows up to the month's end), and `logs_future` (MAXVALUE) above the last, so an insert never fails.
 * A RANGE partition holds everything from the bound of the one below it: a month partition created
 * after a gap (months without rows at the migration, a node down for months) starts at the
 * previous bound, and one above a dropped month takes that month's range over. `from` is therefore
 * the bound below, not the month's start. The master adds the months ahead by splitting
 * `logs_future` (`ensureMysqlLogPartitions`); retention drops whole months (`dropMysqlLogPartition`).
 */
export const MYSQL_OLD_PARTITION = 'logs_old';
export const MYSQL_FUTURE_PARTITION = 'logs_future';

/** Seconds the partition DDL waits for the queries holding the logs table before it gives up (and throws). */
const MYSQL_DDL_LOCK_WAIT_SECONDS = 5;

/** Every partition of the logs table in order, with its actual range; [] for a table not partitioned. */
export async function listMysqlLogPartitions<DB>(db: Kysely<DB>): Promise<LogPartition[]> {
  const { rows } = await sql<{ name: string | null; bound: string | null }>`select partition_name as name, partition_description as bound
    from information_schema.partitions where table_schema = database() and table_name = 'logs' order by partition_ordinal_position`.execute(db);
  const partitions: LogPartition[] = [];
  let from = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    if (row.name === null) return [];
    const to = row.bound === null || row.bound === 'MAXVALUE' ? Number.POSITIVE_INFINITY : Number(row.bound);
    partitions.push({ name: row.name, from, to });
    from = to;
  }
  return partitions;
}

/** The months from `now`'s to LOG_PARTITION_MONTHS_AHEAD after it. */
function monthsFrom(now: number): LogPartition[] {
  const months: LogPartition[] = [];
  let month = monthPartition(now);
  for (let index = 0; index <= LOG_PARTITION_MONTHS_AHEAD; index += 1) {
    months.push(month);
    month = monthPartition(month.to);
  }
  return months;
}

const mysqlPartitionList = (months: LogPartition[]) =>
  sql.join(months.map((month) => sql`partition ${sql.ref(month.name)} values less than (${sql.lit(month.to)})`));

/**
 * Partitions the plain logs table of a MySQL/MariaDB database: a partition for each month its rows
 * fall in (read from the days they hold, so the session's time zone plays no part) and for the
 * current month and those ahead. The primary key becomes (id, created_at): MySQL requires the
 * partition column in every unique key; the ids stay unique, all from the one AUTO_INCREMENT.
 */
export async function partitionMysqlLogs<DB>(db: Kysely<DB>, now = Math.floor(Date.now() / 1000)): Promise<void> {
  const { rows } = await sql<{ day: string | number }>`select distinct created_at div 86400 as day from logs`.execute(db);
  const byName = new Map<string, LogPartition>();
  for (const row of rows) {
    const month = monthPartition(Number(row.day) * 86_400);
    byName.set(month.name, month);
  }
  for (const month of monthsFrom(now)) byName.set(month.name, month);
  const months = [...byName.values()].sort((a, b) => a.from - b.from);
  await sql`alter table logs drop primary key, add primary key (id, created_at)`.execute(db);
  await sql`alter table logs partition by range (created_at) (
    partition ${sql.ref(MYSQL_OLD_PARTITION)} values less than (${sql.lit(months[0]!.from)}),
    ${mysqlPartitionList(months)},
    partition ${sql.ref(MYSQL_FUTURE_PARTITION)} values less than maxvalue)`.execute(db);
}

/**
 * Adds the current month and those ahead that are missing above the last month partition, by
 * splitting logs_future (rows it holds for those months move into them). Answers the names created.
 */
export async function ensureMysqlLogPartitions<DB>(db: Kysely<DB>, now = Math.floor(Date.now() / 1000)): Promise<string[]> {
  const partitions = await listMysqlLogPartitions(db);
  const future = partitions.at(-1);
  if (future?.name !== MYSQL_FUTURE_PARTITION) return [];
  const missing = monthsFrom(now).filter((month) => month.to > future.from);
  if (missing.length === 0) return [];
  await withMysqlLockWait(db, (connection) =>
    sql`alter table logs reorganize partition ${sql.ref(MYSQL_FUTURE_PARTITION)} into (
      ${mysqlPartitionList(missing)},
      partition ${sql.ref(MYSQL_FUTURE_PARTITION)} values less than maxvalue)`.execute(connection),
  );
  return missing.map((month) => month.name);
}

/** Runs partition DDL on one connection that waits at most MYSQL_DDL_LOCK_WAIT_SECONDS for the table. */
export async function withMysqlLockWait<DB, T>(db: Kysely<DB>, run: (connection: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`set session lock_wait_timeout = ${sql.lit(MYSQL_DDL_LOCK_WAIT_SECONDS)}`.execute(connection);
    try {
      return await run(connection);
    } finally {
      await sql`set session lock_wait_timeout = default`.execute(connection);
    }
  });
}

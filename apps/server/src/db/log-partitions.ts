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

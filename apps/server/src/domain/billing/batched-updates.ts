import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from '../../db/index.js';
import type { Database } from '../../db/schema.js';

/** Rows updated by one statement: 300 ids × (a few deltas + the IN list) stays far below every dialect's parameter limit. */
const IDS_PER_STATEMENT = 300;

type Table = 'users' | 'tokens' | 'channels' | 'quota_leases';

/** How one column changes: add a per-row delta, or set a per-row value (rows without one keep theirs). */
export type ColumnChange = { column: string; kind: 'add' | 'set'; valueOf: (id: number) => number | undefined };

/** Ids per locking SELECT: far below every dialect's parameter limit. */
const IDS_PER_LOCK = 1000;

/**
 * Locks the rows in id order (PostgreSQL and MySQL; SQLite has one writer and no row locks). A
 * multi-row UPDATE or DELETE locks rows in the order it meets them in the table, so two
 * transactions that each lock several of the same rows that way can wait on each other in a cycle
 * (the database then aborts one). Every transaction that moves money locks its rows through here
 * or one at a time by id, table by table in one order (lease rows, users, tokens, channels).
 */
export async function lockRowsInIdOrder(executor: Kysely<Database>, dialect: DialectName, table: Table, ids: Iterable<number>): Promise<void> {
  if (dialect === 'sqlite') return;
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  for (let start = 0; start < sorted.length; start += IDS_PER_LOCK) {
    await executor
      .selectFrom(table)
      .select('id')
      .where('id', 'in', sorted.slice(start, start + IDS_PER_LOCK))
      .orderBy('id')
      .forUpdate()
      .execute();
  }
}

/**
 * Applies per-row changes to many rows with one UPDATE per chunk of ids:
 * `SET col = col + CASE id WHEN 1 THEN 5 WHEN 2 THEN 7 ELSE 0 END WHERE id IN (1, 2)`.
 * A flush then costs a handful of statements however many users, tokens and channels the
 * traffic touched, instead of one statement per row.
 */
export async function updateRowsById(
  executor: Kysely<Database>,
  dialect: DialectName,
  table: Table,
  ids: readonly number[],
  changes: readonly ColumnChange[],
  between: () => Promise<void>,
): Promise<void> {
  // PostgreSQL would type the bare parameters as int4; quotas need int8.
  const param = (value: number): RawBuilder<unknown> => (dialect === 'postgres' ? sql`${value}::bigint` : sql`${value}`);
  for (let start = 0; start < ids.length; start += IDS_PER_STATEMENT) {
    if (start > 0) await between();
    const chunk = ids.slice(start, start + IDS_PER_STATEMENT);
    const assignments: Record<string, RawBuilder<unknown>> = {};
    for (const change of changes) {
      const cases: RawBuilder<unknown>[] = [];
      for (const id of chunk) {
        const value = change.valueOf(id);
        if (value === undefined || (change.kind === 'add' && value === 0)) continue;
        cases.push(sql`when ${id} then ${param(value)}`);
      }
      if (cases.length === 0) continue;
      const column = sql.ref(change.column);
      assignments[change.column] =
        change.kind === 'add'
          ? sql`${column} + case ${sql.ref('id')} ${sql.join(cases, sql` `)} else 0 end`
          : sql`case ${sql.ref('id')} ${sql.join(cases, sql` `)} else ${column} end`;
    }
    if (Object.keys(assignments).length === 0) continue;
    await executor
      .updateTable(table)
      .set(assignments as never)
      .where('id', 'in', chunk)
      .execute();
  }
}

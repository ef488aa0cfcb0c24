import type { Kysely } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { LeaseKind } from './lease-book.js';

const balanceColumn = (kind: LeaseKind) =>
  kind === LeaseKind.User ? ({ table: 'users', column: 'quota' } as const) : ({ table: 'tokens', column: 'remain_quota' } as const);

/**
 * Sets a user's quota or a token's remain_quota to `value` as the balance the payer can spend from
 * now on (an admin's override, an owner's edit), not as the column. Part of the balance sits in the
 * relay's lease rows (lease-store.ts), held by calls in flight on any node; each lease goes back to
 * the column when it settles, so the column is written as `value − Σ quota_leases.amount` and ends
 * as `value` minus what those calls cost. The column is below zero meanwhile when the leases hold
 * more than `value`, and the final balance is below zero when the calls cost more than `value`.
 * Charges a node made but has not flushed yet are still in its lease row: they count as made after
 * the write (at most one BATCH_UPDATE_INTERVAL of the payer's spending).
 *
 * One transaction that locks the entity's lease rows (by id), then the balance row, as every
 * transaction that moves money does, so no take, flush or give-back moves them between the read and
 * the write. `alongside` runs next in the same transaction (the log line, the token's other fields)
 * with the balance it replaced (column + leases). Resolves to that balance, undefined when the row
 * is missing.
 */
export async function setSpendableBalance(
  db: Db,
  kind: LeaseKind,
  entityId: number,
  value: number,
  alongside?: (trx: Kysely<Database>, replaced: number) => Promise<void>,
): Promise<number | undefined> {
  const { table, column } = balanceColumn(kind);
  const locking = db.dialect !== 'sqlite';
  return db.kysely.transaction().execute(async (trx) => {
    // SQLite has one writer and no row locks: a write first takes its lock, so nothing read below
    // can change before the write (a read first could not become a write once another process wrote).
    if (!locking) {
      await trx
        .updateTable(table)
        .set((eb) => ({ [column]: eb.ref(column) }) as never)
        .where('id', '=', entityId)
        .execute();
    }
    const leaseQuery = trx.selectFrom('quota_leases').select('amount').where('kind', '=', kind).where('entity_id', '=', entityId).orderBy('id');
    const leases = await (locking ? leaseQuery.forUpdate() : leaseQuery).execute();
    const leased = leases.reduce((sum, lease) => sum + Number(lease.amount), 0);
    const balanceQuery = trx
      .selectFrom(table)
      .select(column as never)
      .where('id', '=', entityId);
    const row = (await (locking ? balanceQuery.forUpdate() : balanceQuery).executeTakeFirst()) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    const replaced = Number(row[column]) + leased;
    if (replaced !== value) {
      await trx
        .updateTable(table)
        .set({ [column]: value - leased } as never)
        .where('id', '=', entityId)
        .execute();
    }
    await alongside?.(trx, replaced);
    return replaced;
  });
}

import type { Db } from '../../db/index.js';
import { LeaseKind } from './lease-book.js';
import type { QuotaLedger } from './quota-ledger.js';

/**
 * Balances as the console shows them. A relay process moves part of a busy payer's balance out
 * of `users.quota` / `tokens.remain_quota` into its lease row (lease-store.ts), so the column
 * alone reads low while calls are made. What the payer can still spend is the column, plus what
 * this process holds (its lease less the charges it made from it), plus the lease rows of other
 * processes (their charges show once they flush, within BATCH_UPDATE_INTERVAL).
 */
export class SpendableQuota {
  constructor(
    private readonly db: Db,
    private readonly ledger: QuotaLedger,
    /** This process's lease holder id: its own rows are counted from memory, which is current. */
    private readonly holder: string,
  ) {}

  /** Balance and used quota, by id, with the leases and this process's unwritten charges included. */
  async of(kind: LeaseKind, rows: ReadonlyMap<number, { balance: number; used: number }>): Promise<Map<number, { balance: number; used: number }>> {
    const ids = [...rows.keys()];
    const result = new Map<number, { balance: number; used: number }>();
    if (ids.length === 0) return result;
    const leased = await this.db.kysely
      .selectFrom('quota_leases')
      .select(['entity_id', (eb) => eb.fn.sum<string | number>('amount').as('amount')])
      .where('kind', '=', kind)
      .where('entity_id', 'in', ids)
      .where('holder', '<>', this.holder)
      .groupBy('entity_id')
      .execute();
    const othersHold = new Map(leased.map((row) => [Number(row.entity_id), Number(row.amount)]));
    const side = kind === LeaseKind.User ? 'user' : 'token';
    for (const [id, row] of rows) {
      result.set(id, {
        balance: row.balance + this.ledger.leases.granted(kind, id) + (othersHold.get(id) ?? 0),
        used: row.used + this.ledger.unflushedUsed(side, id),
      });
    }
    return result;
  }
}

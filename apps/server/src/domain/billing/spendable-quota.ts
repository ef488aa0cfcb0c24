import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { LeaseKind } from './lease-book.js';
import { leasedElsewhere } from './leased-elsewhere.js';
import type { QuotaLedger } from './quota-ledger.js';

export interface PayerBalance {
  /** What the payer can spend. */
  balance: number;
  used: number;
}

/** What an admin's subtract did: taken; refused because the payer has less; refused because calls in flight hold it. */
export type SubtractOutcome = 'taken' | 'short' | 'held';

const balanceColumn = (kind: LeaseKind) =>
  kind === LeaseKind.User ? ({ table: 'users', column: 'quota' } as const) : ({ table: 'tokens', column: 'remain_quota' } as const);

/**
 * What a payer can spend: every figure the console or the relay shows, and every decision on a
 * balance outside the relay's takes, reads it from here. A relay process moves part of a busy
 * payer's balance out of `users.quota` / `tokens.remain_quota` into its lease row (lease-store.ts),
 * and a balance set while calls are in flight leaves the column below zero (balance-set.ts), so the
 * column alone reads low. The payer has the column, plus what this process holds (its lease less
 * the charges it made from it), plus the lease rows of other processes.
 */
export class SpendableQuota {
  constructor(
    private readonly db: Db,
    private readonly ledger: QuotaLedger,
    /** This process's lease holder id: its own rows are counted from memory, which is current. */
    private readonly holder: string,
    /** Gives the free part of this process's lease on a balance (what no call holds) back to the column. */
    private readonly giveBackFree: (kind: LeaseKind, entityId: number) => Promise<void>,
  ) {}

  /**
   * Balance and used quota, by id (missing rows left out), with the leases and this process's
   * unwritten charges included. The column and the other processes' lease rows are read in one
   * statement, as a flush or a take moves money between them in one transaction.
   */
  async of(kind: LeaseKind, ids: Iterable<number>): Promise<Map<number, PayerBalance>> {
    const wanted = [...new Set(ids)];
    const result = new Map<number, PayerBalance>();
    if (wanted.length === 0) return result;
    const { table, column } = balanceColumn(kind);
    const rows = (await this.db.kysely
      .selectFrom(table)
      .select(['id', column, 'used_quota', leasedElsewhere(kind, sql.ref(`${table}.id`), this.holder).as('leased_elsewhere')] as never)
      .where('id', 'in', wanted)
      .execute()) as Record<string, unknown>[];
    const side = kind === LeaseKind.User ? 'user' : 'token';
    for (const row of rows) {
      const id = Number(row.id);
      result.set(id, {
        balance: Number(row[column]) + this.heldHere(kind, id) + Number(row.leased_elsewhere),
        used: Number(row.used_quota) + this.ledger.unflushedUsed(side, id),
      });
    }
    return result;
  }

  /** One payer; undefined when its row is missing. */
  async read(kind: LeaseKind, entityId: number): Promise<PayerBalance | undefined> {
    return (await this.of(kind, [entityId])).get(entityId);
  }

  /**
   * This process's lease less its charges: what it holds, plus what a flush or a give-back of its
   * own is moving to the column (in neither until that transaction commits).
   */
  private heldHere(kind: LeaseKind, entityId: number): number {
    const account = this.ledger.leases.peek(kind, entityId);
    return account === undefined ? 0 : account.granted + account.returning;
  }

  /**
   * Locks the payer's lease rows on every node (by id) in `trx`, before its balance row as every
   * transaction that moves money does, so a statement built by `inStatement` after it reads them
   * as they stay until the commit (and MySQL's shared locks on them come in the usual order).
   * SQLite has one writer: nothing to lock.
   */
  async lockLeases(trx: Kysely<Database>, kind: LeaseKind, entityId: number): Promise<void> {
    if (this.db.dialect === 'sqlite') return;
    await trx.selectFrom('quota_leases').select('id').where('kind', '=', kind).where('entity_id', '=', entityId).orderBy('id').forUpdate().execute();
  }

  /**
   * The same figure inside a statement on the payer's own row (`users` / `tokens`), for a condition
   * that must hold at the moment of the write: build it after `lockLeases`, in the same transaction.
   */
  inStatement(kind: LeaseKind, entityId: number): RawBuilder<number> {
    const { column } = balanceColumn(kind);
    return sql<number>`(${sql.ref(column)} + ${this.heldHere(kind, entityId)} + ${leasedElsewhere(kind, entityId, this.holder)})`;
  }

  /**
   * Takes `amount` away from a payer (an admin's subtract), never leaving less than nothing to
   * spend: one conditional UPDATE of the column (`WHERE quota >= amount`), as the relay's takes are,
   * with `alongside` (the log line) in its transaction. The leases are not touched: what they hold
   * is being spent by calls in flight on some node, and a subtract that counted on it would leave
   * the payer below zero once those calls settle. So when the column is short, this process's free
   * lease (held by no call) goes back to it first and the take is tried once more; if it is still
   * short while the leases make up the amount, the answer is 'held' (the other nodes give back
   * what their calls leave at their next flush, within a few seconds of the payer going idle).
   */
  async subtract(kind: LeaseKind, entityId: number, amount: number, alongside: (trx: Kysely<Database>) => Promise<void>): Promise<SubtractOutcome> {
    if (await this.takeFromColumn(kind, entityId, amount, alongside)) return 'taken';
    if (this.ledger.leases.peek(kind, entityId)?.free) {
      await this.giveBackFree(kind, entityId);
      if (await this.takeFromColumn(kind, entityId, amount, alongside)) return 'taken';
    }
    const now = await this.read(kind, entityId);
    return now !== undefined && now.balance >= amount ? 'held' : 'short';
  }

  private takeFromColumn(kind: LeaseKind, entityId: number, amount: number, alongside: (trx: Kysely<Database>) => Promise<void>): Promise<boolean> {
    const { table, column } = balanceColumn(kind);
    return this.db.kysely.transaction().execute(async (trx) => {
      const taken = await trx
        .updateTable(table)
        .set((eb) => ({ [column]: eb(column, '-', amount) }) as never)
        .where('id', '=', entityId)
        .where('deleted_at', 'is', null)
        .where(column, '>=', amount)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return false;
      await alongside(trx);
      return true;
    });
  }
}

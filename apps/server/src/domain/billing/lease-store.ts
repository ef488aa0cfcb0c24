import type { Kysely } from 'kysely';
import { insertReturningId, type Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { lockRowsInIdOrder, updateRowsById } from './batched-updates.js';
import { LeaseKind, type LeaseAccount, type LeaseFlushEntry } from './lease-book.js';

/** Which balance could not cover a charge. */
export type Shortfall = 'user' | 'token';

/** One balance a take draws from. */
export interface LeasePart {
  account: LeaseAccount;
  amount: number;
  /** The balance must hold this much more than `amount` (left for the payer's calls elsewhere). */
  leaving?: number;
}

class ShortfallError extends Error {
  constructor(readonly side: Shortfall) {
    super(`insufficient ${side} quota`);
  }
}

/** The lease row was deleted by a flush that found it empty: make a new one and take again. */
class MissingRowError extends Error {
  constructor(readonly account: LeaseAccount) {
    super('lease row missing');
  }
}

const balanceOf = (kind: LeaseKind) =>
  kind === LeaseKind.User ? ({ table: 'users', column: 'quota' } as const) : ({ table: 'tokens', column: 'remain_quota' } as const);

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Users before tokens (the order of a flush), then by id. */
function lockOrder(a: LeasePart, b: LeasePart): number {
  return a.account.kind - b.account.kind || a.account.entityId - b.account.entityId;
}

/**
 * The database side of the leases: taking balance into this process's rows (conditional UPDATEs,
 * never read-then-write), the heartbeat that says the process is alive, and the give-back of a dead
 * process's rows. Every statement that moves money moves its lease row in the same transaction.
 */
export class LeaseStore {
  constructor(
    private readonly db: Db,
    /** This process: `<node name>/<random boot id>`. */
    readonly holder: string,
    readonly nodeName: string,
  ) {}

  /**
   * Takes each part's amount from its balance into its lease row, all or nothing: a balance that
   * cannot cover its part leaves every balance as it was and names the side that fell short.
   */
  async take(parts: readonly LeasePart[]): Promise<Shortfall | undefined> {
    for (let attempt = 0; ; attempt += 1) {
      for (const part of parts) if (part.account.rowId === undefined) await this.ensureRow(part.account);
      try {
        await this.db.kysely.transaction().execute(async (trx) => {
          // Rows are locked in the order every transaction here uses (lease rows by id, then users,
          // then tokens, by id), so a take never waits in a cycle with a flush or another take.
          const ordered = [...parts].filter((part) => part.amount > 0).sort(lockOrder);
          for (const { account, amount } of [...ordered].sort((a, b) => a.account.rowId! - b.account.rowId!)) {
            const leased = await trx
              .updateTable('quota_leases')
              .set((eb) => ({ amount: eb('amount', '+', amount) }))
              .where('id', '=', account.rowId!)
              .executeTakeFirst();
            if (Number(leased.numUpdatedRows) !== 1) throw new MissingRowError(account);
          }
          for (const { account, amount, leaving = 0 } of ordered) {
            const { table, column } = balanceOf(account.kind);
            const taken = await trx
              .updateTable(table)
              .set((eb) => ({ [column]: eb(column, '-', amount) }) as never)
              .where('id', '=', account.entityId)
              .where(column, '>=', amount + leaving)
              .executeTakeFirst();
            if (Number(taken.numUpdatedRows) !== 1) throw new ShortfallError(account.kind === LeaseKind.User ? 'user' : 'token');
          }
        });
        return undefined;
      } catch (error) {
        if (error instanceof ShortfallError) return error.side;
        if (error instanceof MissingRowError && attempt < 3) {
          error.account.rowId = undefined;
          continue;
        }
        throw error;
      }
    }
  }

  /** Moves `amount` of a lease's free part back to its balance (lease row first: the lock order). */
  async giveBack(account: LeaseAccount, amount: number): Promise<void> {
    const rowId = account.rowId;
    if (rowId === undefined || amount <= 0) return;
    await this.db.kysely.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('quota_leases')
        .set((eb) => ({ amount: eb('amount', '-', amount) }))
        .where('id', '=', rowId)
        .where('amount', '>=', amount)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new MissingRowError(account);
      const { table, column } = balanceOf(account.kind);
      await trx
        .updateTable(table)
        .set((eb) => ({ [column]: eb(column, '+', amount) }) as never)
        .where('id', '=', account.entityId)
        .execute();
    });
  }

  /** Whether another process holds part of this balance (it gives it back at its next flush). */
  async othersHold(account: LeaseAccount): Promise<boolean> {
    const row = await this.db.kysely
      .selectFrom('quota_leases')
      .select('id')
      .where('kind', '=', account.kind)
      .where('entity_id', '=', account.entityId)
      .where('holder', '<>', this.holder)
      .where('amount', '>', 0)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The balance column (users.quota or tokens.remain_quota) as it stands: what a take can draw on. */
  async balance(account: LeaseAccount): Promise<number> {
    const { table, column } = balanceOf(account.kind);
    const row = await this.db.kysely
      .selectFrom(table)
      .select(column as never)
      .where('id', '=', account.entityId)
      .executeTakeFirst();
    return row === undefined ? 0 : Number((row as Record<string, unknown>)[column]);
  }

  /** Creates the account's (empty) lease row once, however many calls ask at the same moment. */
  private async ensureRow(account: LeaseAccount): Promise<void> {
    account.rowCreating ??= insertReturningId(this.db, 'quota_leases', {
      holder: this.holder,
      kind: account.kind,
      entity_id: account.entityId,
      amount: 0,
    }).finally(() => {
      account.rowCreating = undefined;
    });
    account.rowId = await account.rowCreating;
  }

  /** Announces this process. Its leases are given back by whoever finds it silent for too long. */
  async register(): Promise<void> {
    const now = nowSeconds();
    await this.db.kysely.insertInto('relay_nodes').values({ holder: this.holder, name: this.nodeName, started_at: now, heartbeat_at: now }).execute();
  }

  /**
   * Gives back the leases of processes that are gone: earlier runs under this node name (a restart
   * after a crash: their calls can no longer settle) and any process whose heartbeat is older than
   * `staleSeconds`. Returns the amount given back.
   */
  async reclaimDead(staleSeconds: number): Promise<{ holders: number; amount: number }> {
    const cutoff = nowSeconds() - staleSeconds;
    const rows = await this.db.kysely.selectFrom('relay_nodes').select(['holder', 'name', 'heartbeat_at']).execute();
    let holders = 0;
    let amount = 0;
    for (const row of rows) {
      if (row.holder === this.holder) continue;
      const previousRun = row.name === this.nodeName;
      if (!previousRun && Number(row.heartbeat_at) >= cutoff) continue;
      const given = await this.reclaim(row.holder, previousRun ? undefined : cutoff);
      if (given !== undefined) {
        holders += 1;
        amount += given;
      }
    }
    // Rows whose process row is already gone (nothing should leave them, but they must not be lost).
    const orphans = await this.db.kysely
      .selectFrom('quota_leases')
      .select('holder')
      .distinct()
      .where('holder', 'not in', (eb) => eb.selectFrom('relay_nodes').select('holder'))
      .execute();
    for (const orphan of orphans) {
      const given = await this.reclaim(orphan.holder, undefined, true);
      if (given !== undefined) amount += given;
    }
    return { holders, amount };
  }

  /**
   * One process's leases back to their balances, in one transaction that first deletes the
   * process's row: of two nodes reclaiming at once only the one that deleted it goes on.
   */
  private async reclaim(holder: string, heartbeatBefore: number | undefined, orphan = false): Promise<number | undefined> {
    return this.db.kysely.transaction().execute(async (trx) => {
      if (!orphan) {
        let query = trx.deleteFrom('relay_nodes').where('holder', '=', holder);
        if (heartbeatBefore !== undefined) query = query.where('heartbeat_at', '<', heartbeatBefore);
        const deleted = await query.executeTakeFirst();
        if (Number(deleted.numDeletedRows) !== 1) return undefined;
      }
      const leases = await trx.selectFrom('quota_leases').select(['id', 'kind', 'entity_id', 'amount']).where('holder', '=', holder).orderBy('id').execute();
      const refunds: { kind: LeaseKind; entityId: number; amount: number }[] = [];
      for (const lease of leases) {
        const amount = Number(lease.amount);
        // Conditional on the amount read, so a second reclaimer of an orphan cannot give it twice.
        const cleared = await trx.deleteFrom('quota_leases').where('id', '=', lease.id).where('amount', '=', amount).executeTakeFirst();
        if (Number(cleared.numDeletedRows) === 1 && amount !== 0)
          refunds.push({ kind: Number(lease.kind) as LeaseKind, entityId: Number(lease.entity_id), amount });
      }
      // Users before tokens, by id: the lock order of takes and flushes.
      refunds.sort((a, b) => a.kind - b.kind || a.entityId - b.entityId);
      let total = 0;
      for (const { kind, entityId, amount } of refunds) {
        const { table, column } = balanceOf(kind);
        await trx
          .updateTable(table)
          .set((eb) => ({ [column]: eb(column, '+', amount) }) as never)
          .where('id', '=', entityId)
          .execute();
        total += amount;
      }
      return total;
    });
  }

  /**
   * The lease part of a flush, inside its transaction: the heartbeat, then every account's charges
   * and give-backs out of its row (the balances get the give-backs through the batch). Returns
   * false when this process's row is gone: another node took it for dead and gave its leases back.
   */
  async flushLeases(trx: Kysely<Database>, entries: readonly LeaseFlushEntry[], emptied: readonly number[], between: () => Promise<void>): Promise<boolean> {
    const beat = await trx.updateTable('relay_nodes').set({ heartbeat_at: nowSeconds() }).where('holder', '=', this.holder).executeTakeFirst();
    if (Number(beat.numUpdatedRows) !== 1) return false;
    const byRow = new Map<number, number>();
    for (const entry of entries) byRow.set(entry.rowId, (byRow.get(entry.rowId) ?? 0) - entry.charged - entry.returned);
    // Every row this flush moves or deletes, locked in id order as takes lock them.
    await lockRowsInIdOrder(trx, this.db.dialect, 'quota_leases', [...byRow.keys(), ...emptied]);
    await updateRowsById(trx, this.db.dialect, 'quota_leases', [...byRow.keys()], [{ column: 'amount', kind: 'add', valueOf: (id) => byRow.get(id) }], between);
    if (emptied.length > 0) await trx.deleteFrom('quota_leases').where('id', 'in', emptied).where('amount', '=', 0).execute();
    return true;
  }

  /**
   * After another node gave this process's leases back: register again and take back, unconditionally,
   * what the calls served since then were charged and what this process still holds, so the books
   * stay exact (a balance spent elsewhere meanwhile may go below zero; that is logged).
   */
  async readopt(trx: Kysely<Database>, entries: readonly LeaseFlushEntry[], held: readonly LeaseAccount[]): Promise<Map<LeaseAccount, number>> {
    const now = nowSeconds();
    await trx.insertInto('relay_nodes').values({ holder: this.holder, name: this.nodeName, started_at: now, heartbeat_at: now }).execute();
    // Rows made since the give-back (a call took balance before this flush) hold balance taken
    // already: it is counted in `granted`, so it goes back here and the new rows hold all of it.
    let since = trx.selectFrom('quota_leases').select(['id', 'kind', 'entity_id', 'amount']).where('holder', '=', this.holder).orderBy('id');
    if (this.db.dialect !== 'sqlite') since = since.forUpdate();
    const madeSince = await since.execute();
    if (madeSince.length > 0)
      await trx
        .deleteFrom('quota_leases')
        .where(
          'id',
          'in',
          madeSince.map((row) => row.id),
        )
        .execute();
    // One debit per balance, users before tokens and by id: the lock order of takes and flushes.
    const debits = new Map<string, { kind: LeaseKind; entityId: number; amount: number }>();
    const add = (kind: LeaseKind, entityId: number, amount: number) => {
      const key = `${kind}:${entityId}`;
      const debit = debits.get(key) ?? { kind, entityId, amount: 0 };
      debit.amount += amount;
      debits.set(key, debit);
    };
    for (const { account, charged } of entries) add(account.kind, account.entityId, charged);
    for (const account of held) add(account.kind, account.entityId, account.granted);
    for (const row of madeSince) add(Number(row.kind) as LeaseKind, Number(row.entity_id), -Number(row.amount));
    const ordered = [...debits.values()].sort((a, b) => a.kind - b.kind || a.entityId - b.entityId);
    for (const { kind, entityId, amount } of ordered) await this.debit(trx, kind, entityId, amount);
    const rows = new Map<LeaseAccount, number>();
    for (const account of held) {
      rows.set(
        account,
        await insertReturningId(
          this.db,
          'quota_leases',
          { holder: this.holder, kind: account.kind, entity_id: account.entityId, amount: account.granted },
          trx,
        ),
      );
    }
    return rows;
  }

  /** Takes `amount` from a balance unconditionally (a negative amount gives it back). */
  private async debit(trx: Kysely<Database>, kind: LeaseKind, entityId: number, amount: number): Promise<void> {
    if (amount === 0) return;
    const { table, column } = balanceOf(kind);
    await trx
      .updateTable(table)
      .set((eb) => ({ [column]: eb(column, '-', amount) }) as never)
      .where('id', '=', entityId)
      .execute();
  }

  /** A clean shutdown: the last flush gave everything back, so the rows and the process row go. */
  async unregister(): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      // The process row first, as a reclaimer locks it (by deleting it) before the lease rows.
      if (this.db.dialect !== 'sqlite') await trx.selectFrom('relay_nodes').select('holder').where('holder', '=', this.holder).forUpdate().execute();
      await trx.deleteFrom('quota_leases').where('holder', '=', this.holder).where('amount', '=', 0).execute();
      const left = await trx.selectFrom('quota_leases').select('id').where('holder', '=', this.holder).executeTakeFirst();
      // Anything still held (a call that outlived the shutdown) is given back by the next start.
      if (!left) await trx.deleteFrom('relay_nodes').where('holder', '=', this.holder).execute();
    });
  }
}

import type { Db } from '../../db/index.js';

export interface Payer {
  userId: number;
  tokenId: number;
  /** The token has a balance of its own (not unlimited). */
  limitedToken: boolean;
}

/** Which balance could not cover a charge. */
export type Shortfall = 'user' | 'token';

class ShortfallError extends Error {
  constructor(readonly side: Shortfall) {
    super(`insufficient ${side} quota`);
  }
}

/**
 * The balance moves that cannot wait for a batch: conditional UPDATEs (`... WHERE quota >= n`)
 * in one transaction for token and user, so a charge either lands on both or on neither and no
 * balance ever goes below zero. Never read-then-write.
 */
export class QuotaStore {
  constructor(private readonly db: Db) {}

  /**
   * Takes `amount` from the token (when limited) and the user. Each balance must cover the amount
   * plus what this node already spent from it without writing it yet (`outstanding`).
   * Returns the side that fell short, or undefined when both paid.
   */
  async take(
    payer: Payer,
    amount: number,
    outstanding: { user: number; token: number },
  ): Promise<Shortfall | undefined> {
    if (amount <= 0) return undefined;
    try {
      await this.db.kysely.transaction().execute(async (trx) => {
        if (payer.limitedToken) {
          const result = await trx
            .updateTable('tokens')
            .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
            .where('id', '=', payer.tokenId)
            .where('remain_quota', '>=', amount + outstanding.token)
            .executeTakeFirst();
          if (Number(result.numUpdatedRows) !== 1) throw new ShortfallError('token');
        }
        const result = await trx
          .updateTable('users')
          .set((eb) => ({ quota: eb('quota', '-', amount) }))
          .where('id', '=', payer.userId)
          .where('quota', '>=', amount + outstanding.user)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) throw new ShortfallError('user');
      });
    } catch (error) {
      if (error instanceof ShortfallError) return error.side;
      throw error;
    }
    return undefined;
  }

  /** Gives `amount` back to the token (when limited) and the user. */
  async give(payer: Payer, amount: number): Promise<void> {
    if (amount <= 0) return;
    await this.db.kysely.transaction().execute(async (trx) => {
      if (payer.limitedToken) {
        await trx
          .updateTable('tokens')
          .set((eb) => ({ remain_quota: eb('remain_quota', '+', amount) }))
          .where('id', '=', payer.tokenId)
          .execute();
      }
      await trx
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '+', amount) }))
        .where('id', '=', payer.userId)
        .execute();
    });
  }
}

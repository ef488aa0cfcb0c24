import { TokenStatus } from '@modelgate/contract';
import type { Expression, ExpressionBuilder, Insertable, Kysely, SqlBool, Updateable } from 'kysely';
import { insertReturningId, type Db } from '../../db/index.js';
import type { Database, TokensTable } from '../../db/schema.js';
import { like, likeContains, likeIgnoreCase } from '../../lib/like-pattern.js';
import type { Paging } from '../../lib/paging.js';
import type { TokenRow } from './token-fields.js';

export interface TokenSearch {
  /** Part of the token's name. */
  keyword?: string;
  /** Part of the key, with or without `sk-`. */
  key?: string;
}

/**
 * Tokens, scoped to their owner. The two exceptions say so in their names: findByKey (the relay
 * and key uniqueness) and findAnyById (the super administrator reading a key, which is logged).
 */
export class TokenRepository {
  constructor(private readonly db: Db) {}

  findOwned(userId: number, id: number): Promise<TokenRow | undefined> {
    return this.db.kysely.selectFrom('tokens').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  }

  findAnyById(id: number): Promise<TokenRow | undefined> {
    return this.db.kysely.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Id and key of those of `ids` the user owns; the others are left out. */
  async ownedKeys(userId: number, ids: number[]): Promise<{ id: number; key: string }[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.kysely.selectFrom('tokens').select(['id', 'key']).where('user_id', '=', userId).where('id', 'in', ids).execute();
    return rows.map((row) => ({ id: Number(row.id), key: row.key }));
  }

  findByKey(key: string): Promise<TokenRow | undefined> {
    return this.db.kysely.selectFrom('tokens').selectAll().where('key', '=', key).executeTakeFirst();
  }

  async list(userId: number, search: TokenSearch, paging: Paging): Promise<{ items: TokenRow[]; total: number }> {
    const where = (eb: ExpressionBuilder<Database, 'tokens'>): Expression<SqlBool> => {
      const conditions: Expression<SqlBool>[] = [eb('user_id', '=', userId)];
      const keyword = search.keyword?.trim();
      if (keyword) conditions.push(likeIgnoreCase('name', likeContains(keyword)));
      const key = search.key?.trim().replace(/^sk-/, '');
      if (key) conditions.push(like('key', likeContains(key)));
      return eb.and(conditions);
    };
    const counted = await this.db.kysely
      .selectFrom('tokens')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where(where)
      .executeTakeFirstOrThrow();
    const items = await this.db.kysely
      .selectFrom('tokens')
      .selectAll()
      .where(where)
      .orderBy('id', 'desc')
      .limit(paging.pageSize)
      .offset(paging.offset)
      .execute();
    return { items, total: Number(counted.total) };
  }

  insert(values: Insertable<TokensTable>): Promise<number> {
    return insertReturningId(this.db, 'tokens', values);
  }

  async update(userId: number, id: number, values: Updateable<TokensTable>, executor: Kysely<Database> = this.db.kysely): Promise<void> {
    if (Object.keys(values).length === 0) return;
    await executor.updateTable('tokens').set(values).where('id', '=', id).where('user_id', '=', userId).execute();
  }

  /**
   * Switches a token on only if it is neither expired nor used up at the moment of the write,
   * so a relay request settling at the same time cannot slip an exhausted token back on.
   * `remaining`: what the token can spend, read in the statement (SpendableQuota.inStatement, in a
   * transaction that locked the token's lease rows first).
   */
  async enableIfUsable(userId: number, id: number, now: number, remaining: Expression<number>, executor: Kysely<Database> = this.db.kysely): Promise<boolean> {
    const result = await executor
      .updateTable('tokens')
      .set({ status: TokenStatus.Enabled })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('expired_time', '=', -1), eb('expired_time', '>', now)]))
      .where((eb) => eb.or([eb('unlimited_quota', '=', 1), eb(remaining, '>', 0)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes those of `ids` that are the user's; answers the keys of the rows it deleted. */
  async deleteMany(userId: number, ids: number[]): Promise<string[]> {
    return this.db.kysely.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom('tokens').select(['id', 'key']).where('user_id', '=', userId).where('id', 'in', ids).execute();
      if (rows.length === 0) return [];
      await trx
        .deleteFrom('tokens')
        .where('user_id', '=', userId)
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return rows.map((row) => row.key);
    });
  }

  async delete(userId: number, id: number): Promise<boolean> {
    const result = await this.db.kysely.deleteFrom('tokens').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

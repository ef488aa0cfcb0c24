import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * A unique key on quota_data (user, model, hour), so the usage export adds to a row with one
 * upsert instead of reading it first. Rows that already share a key (written by new-api, whose
 * read-then-write export can race) are merged into the oldest one before the key is created.
 */
export function quotaDataKey(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const duplicates = (await db
        .selectFrom('quota_data')
        .select(['user_id', 'model_name', 'created_at'])
        .select((eb) => [
          eb.fn.min('id').as('keep_id'),
          eb.fn.sum('token_used').as('token_used'),
          eb.fn.sum('count').as('count'),
          eb.fn.sum('quota').as('quota'),
        ])
        .groupBy(['user_id', 'model_name', 'created_at'])
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute()) as { user_id: number; model_name: string; created_at: number; keep_id: number; token_used: unknown; count: unknown; quota: unknown }[];
      for (const row of duplicates) {
        await db
          .updateTable('quota_data')
          .set({ token_used: Number(row.token_used), count: Number(row.count), quota: Number(row.quota) })
          .where('id', '=', row.keep_id)
          .execute();
        await db
          .deleteFrom('quota_data')
          .where('user_id', '=', row.user_id)
          .where('model_name', '=', row.model_name)
          .where('created_at', '=', row.created_at)
          .where('id', '<>', row.keep_id)
          .execute();
      }
      await db.schema.createIndex('idx_quota_data_key').unique().on('quota_data').columns(['user_id', 'model_name', 'created_at']).execute();
    },
    async down(db: Kysely<any>) {
      const drop = db.schema.dropIndex('idx_quota_data_key');
      await (dialect === 'mysql' ? drop.on('quota_data') : drop).execute();
    },
  };
}

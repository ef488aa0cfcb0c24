import { describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { quotaDataKey } from './005-quota-data-key.js';

describe.each(DIALECTS)('migration 005-quota-data-key on %s', (dialect) => {
  it('merges rows that share (user, model, hour) into one, then keeps them unique', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      const { kysely } = fresh.db;
      const migration = quotaDataKey(dialect);
      // The database as new-api may leave it: the key not there yet, a race's duplicate rows.
      await migration.down!(kysely);
      const row = (model_name: string, count: number) => ({
        user_id: 1,
        username: 'u',
        model_name,
        created_at: 3600,
        token_used: count * 10,
        count,
        quota: count * 100,
      });
      await kysely
        .insertInto('quota_data')
        .values([row('m', 1), row('m', 2), row('other', 4), row('m', 3)])
        .execute();
      await migration.up(kysely);

      const rows = await kysely.selectFrom('quota_data').select(['model_name', 'count', 'quota', 'token_used']).orderBy('model_name').execute();
      expect(rows.map((r) => [r.model_name, Number(r.count), Number(r.quota), Number(r.token_used)])).toEqual([
        ['m', 6, 600, 60],
        ['other', 4, 400, 40],
      ]);
      await expect(kysely.insertInto('quota_data').values(row('m', 1)).execute()).rejects.toThrow();
    } finally {
      await fresh.drop();
    }
  });
});

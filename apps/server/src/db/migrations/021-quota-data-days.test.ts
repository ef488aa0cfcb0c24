import { describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { quotaDataDays } from './021-quota-data-days.js';

describe.each(DIALECTS)('migration 021-quota-data-days on %s', (dialect) => {
  it('adds one revision row per day, and goes down and up again cleanly', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      const { kysely } = fresh.db;
      await kysely.insertInto('quota_data_days').values({ day: 86_400, revision: 3 }).execute();
      await expect(kysely.insertInto('quota_data_days').values({ day: 86_400, revision: 1 }).execute()).rejects.toThrow();
      const migration = quotaDataDays();
      await migration.down!(kysely);
      await expect(kysely.selectFrom('quota_data_days').selectAll().execute()).rejects.toThrow();
      await migration.up(kysely);
      expect(await kysely.selectFrom('quota_data_days').selectAll().execute()).toEqual([]);
    } finally {
      await fresh.drop();
    }
  });
});

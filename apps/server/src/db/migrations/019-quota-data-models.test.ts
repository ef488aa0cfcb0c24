import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { quotaDataModels } from './019-quota-data-models.js';

describe.each(DIALECTS)('migration 019-quota-data-models on %s', (dialect) => {
  it('sums the dashboard rows already written per model and hour, and goes back down cleanly', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      const { kysely } = fresh.db;
      const migration = quotaDataModels(dialect);
      // The database as the version before 019 left it: quota_data alone.
      await migration.down!(kysely);
      const row = (user_id: number, model_name: string, created_at: number, count: number) => ({
        user_id,
        username: `u${user_id}`,
        model_name,
        created_at,
        token_used: count * 10,
        count,
        quota: count * 100,
      });
      await kysely
        .insertInto('quota_data')
        .values([row(1, 'm', 3600, 1), row(2, 'm', 3600, 2), row(3, 'm', 7200, 4), row(1, 'other', 3600, 8)])
        .execute();
      await migration.up(kysely);

      const rows = await kysely.selectFrom('quota_data_models').selectAll().orderBy('created_at').orderBy('model_name').execute();
      expect(rows.map((r) => [r.model_name, Number(r.created_at), Number(r.count), Number(r.quota), Number(r.token_used)])).toEqual([
        ['m', 3600, 3, 300, 30],
        ['other', 3600, 8, 800, 80],
        ['m', 7200, 4, 400, 40],
      ]);
      await migration.down!(kysely);
      await migration.up(kysely);
      expect(await kysely.selectFrom('quota_data_models').selectAll().execute()).toHaveLength(3);
    } finally {
      await fresh.drop();
    }
  });
});

describe('who writes the dashboard rows', () => {
  // quota_data_models stays quota_data summed over users only if both are written together: the
  // usage export is the one writer (besides the migrations); a new one fails here.
  it('only the usage export and the migrations insert, update or delete quota_data', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return name === 'testing' || name === 'test-support' ? [] : files(path);
        return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
      });
    const writes =
      /(insertInto|deleteFrom|updateTable)\(\s*'quota_data(_models|_days)?'|\b(insert\s+into|delete\s+from|update)\s+quota_data(_models|_days)?\b/i;
    const writers = files(root)
      .filter((path) => writes.test(readFileSync(path, 'utf8')))
      .map((path) => relative(root, path).split('\\').join('/'))
      .sort();
    expect(writers).toEqual(['db/migrations/005-quota-data-key.ts', 'db/migrations/019-quota-data-models.ts', 'domain/usage/quota-data-export.ts']);
  });
});

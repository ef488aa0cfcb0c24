import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { connectDb } from '../../db/index.js';
import { testSecretKey } from '../../test-support/dialects.js';
import { startTestApp } from '../../test-support/test-app.js';
import { importDatabase } from './import-runner.js';
import { openImportSource } from './import-source.js';

const ONE_API_KEY = 'Qw3eRt5yUi7oPa9sDf1gHj3kLz5xCv7bNm9QwErTyUiOpAsD';

describe('import from a one-api SQLite database', () => {
  it("fills new-api's later columns from one-api's forms, and the app serves the result", async () => {
    // The app's own directory holds the source too, so one close removes both.
    const test = await startTestApp();
    const sourcePath = join(test.dir, 'one-api.db');
    const targetPath = join(test.dir, 'imported.db');
    try {
      const hash = (await bcrypt.hash('one-api-pass', 10)).replace(/^\$2b\$/, '$2a$');
      const database = new SqliteDatabase(sourcePath);
      database.exec(readFileSync(new URL('./__fixtures__/one-api-sqlite.sql', import.meta.url), 'utf8'));
      database.exec(`
INSERT INTO users (id, username, password, display_name, role, status, quota, "group", aff_code, lark_id) VALUES
 (1, 'root', '${hash}', 'Root', 100, 1, 1000000, 'default', 'abcd', ''), (2, 'dave', '${hash}', 'Dave', 1, 1, 500000, 'default', 'efgh', 'ou_1');
INSERT INTO tokens (id, user_id, key, status, name, created_time, accessed_time, expired_time, remain_quota, unlimited_quota, used_quota, models, subnet) VALUES
 (1, 2, '${ONE_API_KEY}', 1, 'dave-limited', 1700000000, 0, -1, 0, 1, 0, 'gpt-4o-mini', '');
INSERT INTO channels (id, type, key, status, name, created_time, models, "group", priority, config, system_prompt) VALUES
 (1, 1, 'sk-one-api-upstream', 1, 'one-api-openai', 1700000000, 'gpt-4o-mini,gpt-4o', 'default', 0, '{}', '');
INSERT INTO abilities ("group", model, channel_id, enabled, priority) VALUES ('default', 'gpt-4o-mini', 1, 1, 0), ('default', 'gpt-4o', 1, 1, 0);
INSERT INTO options (key, value) VALUES ('QuotaForNewUser', '777');
INSERT INTO redemptions (id, user_id, key, status, name, quota, created_time, redeemed_time) VALUES (1, 1, 'aaaabbbbccccddddeeeeffff00001111', 1, 'gift', 1000, 1700000000, 0);
INSERT INTO logs (id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens, completion_tokens, channel_id, request_id, elapsed_time, is_stream) VALUES
 (1, 2, 1700000100, 2, '', 'dave', 'dave-limited', 'gpt-4o-mini', 300, 10, 20, 1, 'req-1', 2500, 1);`);
      database.close();

      const target = await connectDb({ sqlitePath: targetPath, sqlDsn: '', migrate: true, secretKey: testSecretKey });
      const source = await openImportSource(sourcePath);
      const summary = await importDatabase({ source, target });
      await source.close();
      await target.close();
      expect(summary.tables.map((table) => [table.table, table.inserted, table.failed])).toEqual([
        ['users', 2, 0],
        ['tokens', 1, 0],
        ['channels', 1, 0],
        ['abilities', 2, 0],
        ['options', 1, 0],
        ['redemptions', 1, 0],
        ['logs', 1, 0],
      ]);
      const unmapped = Object.fromEntries(summary.tables.map((table) => [table.table, table.unmappedColumns]));
      expect(unmapped).toMatchObject({
        users: ['lark_id'],
        tokens: ['subnet'],
        channels: ['config', 'system_prompt'],
        logs: ['request_id', 'system_prompt_reset'],
      });

      const app = await startTestApp({ SQLITE_PATH: targetPath });
      try {
        const root = await app.login('root', 'one-api-pass');
        await app.login('dave', 'one-api-pass');
        // one-api's token `models` became the token's model limits.
        const models = await app.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer sk-${ONE_API_KEY}` } });
        expect(models.statusCode).toBe(200);
        expect((models.json() as { data: { id: string }[] }).data.map((model) => model.id)).toEqual(['gpt-4o-mini']);
        const logs = (await app.app.inject({ method: 'GET', url: '/api/log/?p=1&page_size=10', headers: root })).json() as {
          data: { items: { use_time: number; is_stream: boolean; channel_name: string }[] };
        };
        expect(logs.data.items).toEqual([expect.objectContaining({ use_time: 3, is_stream: true, channel_name: 'one-api-openai' })]);
      } finally {
        await app.close();
      }
    } finally {
      await test.close();
    }
  });
});

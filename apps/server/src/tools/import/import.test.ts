import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import bcrypt from 'bcryptjs';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDb, type Db } from '../../db/index.js';
import { testSecretKey } from '../../test-support/dialects.js';
import { createFreshDb, TEST_MYSQL_URL, TEST_PG_URL } from '../../test-support/dialects.js';
import { startTestApp } from '../../test-support/test-app.js';
import { IMPORT_COLUMNS, IMPORT_TABLES } from './import-columns.js';
import type { ImportSummary, TableSummary } from './import-report.js';
import { importDatabase } from './import-runner.js';
import { openImportSource } from './import-source.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

// new-api keys: 48 characters, stored without `sk-` (model/token.go GenerateKey).
const ALICE_KEY = 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0hIj3kLm6n';
const BOB_KEY = 'Zy1xWv2uTs3rQp4oNm5lKj6iHg7fEd8cBa9zYx0wVu1tSr2q';
const SMTP_SECRET = 'smtp-imported-PASSWORD-0123';
const WEBHOOK_SECRET = 'whsec-imported-0123456789';
const ALICE_SETTING = JSON.stringify({ notify_type: 'webhook', webhook_url: 'https://hooks.example.com/alice', webhook_secret: WEBHOOK_SECRET });

interface SourceDialect {
  yes: string;
  no: string;
  /** Quotes `group` and `key` (reserved words). */
  q: (name: string) => string;
  deletedAt: string;
}

const SQLITE_SOURCE: SourceDialect = { yes: '1', no: '0', q: (name) => `\`${name}\``, deletedAt: '2024-05-01 10:00:00+00:00' };
const POSTGRES_SOURCE: SourceDialect = { yes: 'true', no: 'false', q: (name) => `"${name}"`, deletedAt: '2024-05-01 10:00:00+00:00' };
// MariaDB takes no zone in a datetime literal; GORM writes UTC there.
const MYSQL_SOURCE: SourceDialect = { yes: 'true', no: 'false', q: (name) => `\`${name}\``, deletedAt: '2024-05-01 10:00:00' };

/** A few rows of each table, as new-api writes them. */
function sourceRows(passwordHash: string, { yes, no, q, deletedAt }: SourceDialect): string {
  const group = q('group');
  const key = q('key');
  return `
INSERT INTO users (id, username, password, display_name, role, status, email, access_token, quota, used_quota, request_count, ${group}, aff_code, aff_count, inviter_id, deleted_at, setting, stripe_customer) VALUES
 (1, 'root', '${passwordHash}', 'Root User', 100, 1, 'root@example.com', NULL, 500000000, 1200, 12, 'default', 'rA1b', 0, 0, NULL, '', ''),
 (2, 'alice', '${passwordHash}', 'Alice', 1, 1, 'alice@example.com', '', 250000, 4000, 3, 'vip', 'aL2c', 1, 1, NULL, '${ALICE_SETTING}', 'cus_123'),
 (5, 'gone', '${passwordHash}', 'Gone', 1, 2, '', NULL, 0, 0, 0, 'default', NULL, 0, 0, '${deletedAt}', NULL, NULL);
INSERT INTO tokens (id, user_id, ${key}, status, name, created_time, accessed_time, expired_time, remain_quota, unlimited_quota, model_limits_enabled, model_limits, allow_ips, used_quota, ${group}, cross_group_retry) VALUES
 (1, 2, '${ALICE_KEY}', 1, 'alice-key', 1714550000, 1714551000, -1, 0, ${yes}, ${no}, '', NULL, 4000, '', ${no}),
 (3, 1, '${BOB_KEY}', 2, 'root-disabled', 1714550000, 0, -1, 1000, ${no}, ${yes}, 'gpt-4o-mini', '', 0, 'default', ${no});
INSERT INTO channels (id, type, ${key}, open_ai_organization, test_model, status, name, weight, created_time, base_url, models, ${group}, used_quota, model_mapping, priority, auto_ban, tag, channel_info, settings) VALUES
 (4, 1, 'sk-upstream-secret-1', 'org-42', NULL, 1, 'openai-main', NULL, 1714540000, 'http://127.0.0.1:9', 'gpt-4o-mini,gpt-4o', 'default,vip', 5200, '{"gpt-4o":"gpt-4o-2024-08-06"}', 10, 1, 'main', '{"is_multi_key":false}', '{}'),
 (7, 14, 'sk-ant-upstream-2', NULL, NULL, 2, 'claude-off', 0, 1714540000, NULL, 'claude-3-5-haiku-latest', 'default', 0, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO abilities (${group}, model, channel_id, enabled, priority, weight, tag) VALUES
 ('default', 'gpt-4o-mini', 4, ${yes}, 10, 0, 'main'), ('vip', 'gpt-4o-mini', 4, ${yes}, 10, 0, 'main'),
 ('default', 'gpt-4o', 4, ${yes}, 10, 0, 'main'), ('vip', 'gpt-4o', 4, ${yes}, 10, 0, 'main'),
 ('default', 'claude-3-5-haiku-latest', 7, ${no}, NULL, 0, NULL);
INSERT INTO options (${key}, value) VALUES ('QuotaForNewUser', '1234'), ('RetryTimes', '3'), ('GroupRatio', '{"default":1,"vip":1.5}'), ('SMTPToken', '${SMTP_SECRET}'),
 ('SomeFutureNewApiSetting', 'x'), ('QuotaPerUnit', 'not a number');
INSERT INTO redemptions (id, user_id, ${key}, status, name, quota, created_time, redeemed_time, used_user_id, deleted_at, expired_time) VALUES
 (1, 1, '0123456789abcdef0123456789abcdef', 1, 'welcome', 500000, 1714540000, 0, 0, NULL, 0),
 (2, 1, 'fedcba9876543210fedcba9876543210', 3, 'used', 100000, 1714540000, 1714541000, 2, NULL, 0);
INSERT INTO logs (id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens, completion_tokens, use_time, is_stream, channel_id, token_id, ${group}, ip, other) VALUES
 (1, 2, 1714551000, 2, '', 'alice', 'alice-key', 'gpt-4o-mini', 1500, 100, 50, 1, ${yes}, 4, 1, 'vip', '', '{"model_ratio":0.075}'),
 (2, 2, 1714551100, 2, '', 'alice', 'alice-key', 'gpt-4o', 2500, 200, 80, 2, ${no}, 4, 1, 'vip', '', '{}'),
 (9, 1, 1714540000, 1, '管理员为用户充值 ＄1.000000', 'root', '', '', 0, 0, 0, 0, ${no}, 0, 0, '', '', NULL);
`;
}

const byTable = (summary: ImportSummary, table: string): TableSummary => {
  const found = summary.tables.find((candidate) => candidate.table === table);
  if (!found) throw new Error(`no summary for ${table}`);
  return found;
};

async function importInto(target: Db, location: string, batchSize = 2): Promise<ImportSummary> {
  const source = await openImportSource(location);
  try {
    // A batch of 2 makes every table span several pages and transactions.
    return await importDatabase({ source, target, batchSize });
  } finally {
    await source.close();
  }
}

let passwordHash = '';
let dir = '';
let sqliteSource = '';

beforeAll(async () => {
  // Go's bcrypt (new-api) writes `$2a$10$…`; bcryptjs writes the same format.
  passwordHash = await bcrypt.hash('old-password-1', 10);
  dir = mkdtempSync(join(tmpdir(), 'modelgate-import-'));
  sqliteSource = join(dir, 'one-api.db');
  const database = new SqliteDatabase(sqliteSource);
  database.exec(fixture('new-api-sqlite.sql'));
  database.exec(sourceRows(passwordHash.replace(/^\$2b\$/, '$2a$'), SQLITE_SOURCE));
  database.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('import from a new-api SQLite database', () => {
  it('copies every table, and the app serves the imported users, keys, channels, options and logs', async () => {
    const targetPath = join(dir, 'modelgate.db');
    const target = await connectDb({ sqlitePath: targetPath, sqlDsn: '', migrate: true, secretKey: testSecretKey });
    const first = await importInto(target, sqliteSource);
    const second = await importInto(target, sqliteSource);
    await target.close();

    const counts = (summary: ImportSummary) =>
      Object.fromEntries(summary.tables.map((table) => [table.table, [table.read, table.inserted, table.unchanged, table.skipped, table.failed]]));
    expect(counts(first)).toEqual({
      users: [3, 3, 0, 0, 0],
      tokens: [2, 2, 0, 0, 0],
      channels: [2, 2, 0, 0, 0],
      abilities: [5, 5, 0, 0, 0],
      options: [6, 4, 0, 1, 1],
      redemptions: [2, 2, 0, 0, 0],
      logs: [3, 3, 0, 0, 0],
    });
    expect(byTable(first, 'options').skippedKeys).toEqual(['SomeFutureNewApiSetting']);
    expect(byTable(first, 'users').unmappedColumns).toEqual(['discord_id', 'stripe_customer']);
    expect(byTable(first, 'channels').unmappedColumns).toEqual(['settings']);
    expect(first.warnings.join('\n')).toContain('QuotaPerUnit');
    // The second run changes nothing: every row is found unchanged.
    expect(counts(second)).toEqual({
      users: [3, 0, 3, 0, 0],
      tokens: [2, 0, 2, 0, 0],
      channels: [2, 0, 2, 0, 0],
      abilities: [5, 0, 5, 0, 0],
      options: [6, 0, 4, 1, 1],
      redemptions: [2, 0, 2, 0, 0],
      logs: [3, 0, 3, 0, 0],
    });
    expect(second.tables.every((table) => table.kept === 0 && table.updated === 0)).toBe(true);
    expect(JSON.stringify([first, second])).not.toContain(ALICE_KEY);
    expect(JSON.stringify([first, second])).not.toContain('upstream-secret');
    // What it copied is sealed at rest: the file holds no channel key, secret option or webhook secret.
    const bytes = Buffer.concat([targetPath, `${targetPath}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path)));
    expect(bytes.includes('openai-main')).toBe(true);
    for (const secret of ['sk-upstream-secret-1', 'sk-ant-upstream-2', SMTP_SECRET, WEBHOOK_SECRET]) expect(bytes.includes(secret), secret).toBe(false);

    const test = await startTestApp({ SQLITE_PATH: targetPath });
    try {
      // No default root was made: the imported root signs in with the old password.
      const root = await test.login('root', 'old-password-1');
      await expect(test.login('root', '123456')).rejects.toThrow();
      await test.login('alice', 'old-password-1');
      await expect(test.login('gone', 'old-password-1')).rejects.toThrow();

      const models = await test.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer sk-${ALICE_KEY}` } });
      expect(models.statusCode).toBe(200);
      expect((models.json() as { data: { id: string }[] }).data.map((model) => model.id).sort()).toEqual(['gpt-4o', 'gpt-4o-mini']);
      const disabled = await test.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer sk-${BOB_KEY}` } });
      expect(disabled.statusCode).toBe(401);

      const channels = (await test.app.inject({ method: 'GET', url: '/api/channel/?p=1&page_size=10', headers: root })).json() as {
        data: { items: { id: number; name: string; openai_organization: string; status: number; priority: number }[] };
      };
      const main = channels.data.items.find((channel) => channel.id === 4);
      expect(main).toMatchObject({ name: 'openai-main', openai_organization: 'org-42', status: 1, priority: 10 });
      expect(channels.data.items.find((channel) => channel.id === 7)).toMatchObject({ name: 'claude-off', status: 2 });

      const options = (await test.app.inject({ method: 'GET', url: '/api/option/', headers: root })).json() as { data: { key: string; value: string }[] };
      const option = (key: string) => options.data.find((entry) => entry.key === key)?.value;
      expect(option('QuotaForNewUser')).toBe('1234');
      expect(option('RetryTimes')).toBe('3');
      expect(JSON.parse(option('GroupRatio') ?? '{}')).toEqual({ default: 1, vip: 1.5 });
      expect(option('SMTPToken')).toBeUndefined();
      expect(test.context.options.raw('SMTPToken')).toBe(SMTP_SECRET);
      const alice = await test.context.db.kysely.selectFrom('users').select('setting').where('id', '=', 2).executeTakeFirstOrThrow();
      expect(test.context.db.secrets.open(JSON.parse(alice.setting).webhook_secret)).toBe(WEBHOOK_SECRET);

      const logs = (await test.app.inject({ method: 'GET', url: '/api/log/?p=1&page_size=10', headers: root })).json() as {
        data: { items: { id: number; model_name: string; quota: number; is_stream: boolean; channel: number; channel_name: string }[]; total: number };
      };
      expect(logs.data.total).toBe(3);
      expect(logs.data.items.find((log) => log.id === 1)).toMatchObject({
        model_name: 'gpt-4o-mini',
        quota: 1500,
        is_stream: true,
        channel: 4,
        channel_name: 'openai-main',
      });

      // The app's own new rows take ids past the imported ones.
      const created = await test.app.inject({
        method: 'POST',
        url: '/api/user/',
        headers: root,
        payload: { username: 'newbie', password: 'new-password-1', display_name: 'n' },
      });
      expect((created.json() as { success: boolean }).success).toBe(true);
      const newbie = await test.context.db.kysely.selectFrom('users').select('id').where('username', '=', 'newbie').executeTakeFirstOrThrow();
      expect(Number(newbie.id)).toBeGreaterThan(5);
    } finally {
      await test.close();
    }
  });

  it('keeps a row of its own whose id the source also uses, and says so', async () => {
    const fresh = await createFreshDb('sqlite');
    try {
      await fresh.db.kysely.insertInto('users').values({ id: 2, username: 'carol', username_key: 'carol', password: 'x' }).execute();
      const summary = await importInto(fresh.db, sqliteSource);
      expect(byTable(summary, 'users')).toMatchObject({ read: 3, inserted: 2, kept: 1 });
      const carol = await fresh.db.kysely.selectFrom('users').select('username').where('id', '=', 2).executeTakeFirstOrThrow();
      expect(carol.username).toBe('carol');
      expect(summary.warnings.join('\n')).toContain('#2 (carol)');
    } finally {
      await fresh.drop();
    }
  });

  it("replaces the default root a first start made (still on 123456) with the source's administrator", async () => {
    const first = await startTestApp();
    const copy = join(dir, 'started-once.db');
    try {
      await first.login('root', '123456');
      await first.context.db.sqlite?.backup(copy);
    } finally {
      await first.close();
    }
    const target = await connectDb({ sqlitePath: copy, sqlDsn: '', migrate: true, secretKey: testSecretKey });
    expect((await target.kysely.selectFrom('sessions').selectAll().where('user_id', '=', 1).execute()).length).toBe(1);
    const summary = await importInto(target, sqliteSource);
    expect(byTable(summary, 'users')).toMatchObject({ read: 3, inserted: 2, updated: 1, kept: 0 });
    expect(summary.warnings.join('\n')).toContain("#1: modelgate's default root (password 123456) was replaced by root");
    expect(await target.kysely.selectFrom('sessions').selectAll().where('user_id', '=', 1).execute()).toEqual([]);
    const again = await importInto(target, sqliteSource);
    expect(byTable(again, 'users')).toMatchObject({ read: 3, inserted: 0, updated: 0, unchanged: 3 });
    await target.close();
    const test = await startTestApp({ SQLITE_PATH: copy });
    try {
      await test.login('root', 'old-password-1');
      await expect(test.login('root', '123456')).rejects.toThrow();
    } finally {
      await test.close();
    }
  });

  it('lists exactly the columns of our migrated tables', async () => {
    const fresh = await createFreshDb('sqlite');
    try {
      const tables = await fresh.db.kysely.introspection.getTables();
      for (const table of IMPORT_TABLES) {
        const ours = tables
          .find((candidate) => candidate.name === table)
          ?.columns.map((column) => column.name)
          .filter((name) => name !== 'username_key');
        expect(Object.keys(IMPORT_COLUMNS[table]).sort(), table).toEqual(ours?.sort());
      }
    } finally {
      await fresh.drop();
    }
  });
});

describe('import from a new-api PostgreSQL database', () => {
  it('reads booleans and timestamps from PostgreSQL and moves our sequences past the imported ids', async () => {
    const schema = `newapi_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`SET search_path TO ${schema}`);
    await admin.query(fixture('new-api-postgres.sql'));
    await admin.query(sourceRows(passwordHash, POSTGRES_SOURCE));
    const sourceUrl = new URL(TEST_PG_URL);
    sourceUrl.searchParams.set('options', `-c search_path=${schema}`);
    const target = await createFreshDb('postgres');
    try {
      const first = await importInto(target.db, sourceUrl.toString());
      expect(first.tables.map((table) => [table.table, table.inserted])).toEqual([
        ['users', 3],
        ['tokens', 2],
        ['channels', 2],
        ['abilities', 5],
        ['options', 4],
        ['redemptions', 2],
        ['logs', 3],
      ]);
      const gone = await target.db.kysely.selectFrom('users').select(['deleted_at', 'access_token']).where('id', '=', 5).executeTakeFirstOrThrow();
      expect(Number(gone.deleted_at)).toBe(Date.UTC(2024, 4, 1, 10) / 1000);
      const alice = await target.db.kysely.selectFrom('tokens').select(['key', 'unlimited_quota']).where('id', '=', 1).executeTakeFirstOrThrow();
      expect(alice).toEqual({ key: ALICE_KEY, unlimited_quota: 1 });
      const second = await importInto(target.db, sourceUrl.toString());
      expect(second.tables.every((table) => table.inserted === 0 && table.kept === 0 && table.updated === 0)).toBe(true);
      const next = await target.db.kysely.insertInto('logs').values({ user_id: 1, created_at: 1, type: 1 }).returning('id').executeTakeFirstOrThrow();
      expect(Number(next.id)).toBe(10);
    } finally {
      await target.drop();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});

describe('import from a new-api MySQL database', () => {
  it('reads tinyint booleans and datetimes from MariaDB into a MariaDB target, twice without change', async () => {
    // The test user may create databases named modelgate_t_* (scripts/services.sh).
    const name = `modelgate_t_newapi_${process.pid}_${Date.now() % 1_000_000}`;
    const admin = await createConnection({ uri: TEST_MYSQL_URL, multipleStatements: true });
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    await admin.query(`USE ${name}`);
    await admin.query(fixture('new-api-mysql.sql'));
    await admin.query(sourceRows(passwordHash, MYSQL_SOURCE));
    const sourceUrl = new URL(TEST_MYSQL_URL);
    sourceUrl.pathname = `/${name}`;
    const target = await createFreshDb('mysql');
    try {
      const first = await importInto(target.db, sourceUrl.toString());
      expect(first.tables.map((table) => [table.table, table.inserted, table.failed])).toEqual([
        ['users', 3, 0],
        ['tokens', 2, 0],
        ['channels', 2, 0],
        ['abilities', 5, 0],
        ['options', 4, 1],
        ['redemptions', 2, 0],
        ['logs', 3, 0],
      ]);
      const log = await target.db.kysely.selectFrom('logs').select(['is_stream', 'channel_name']).where('id', '=', 1).executeTakeFirstOrThrow();
      expect(log).toEqual({ is_stream: 1, channel_name: 'openai-main' });
      const gone = await target.db.kysely.selectFrom('users').select('deleted_at').where('id', '=', 5).executeTakeFirstOrThrow();
      expect(Number(gone.deleted_at)).toBe(Date.UTC(2024, 4, 1, 10) / 1000);
      const second = await importInto(target.db, sourceUrl.toString());
      expect(second.tables.every((table) => table.inserted === 0 && table.kept === 0 && table.updated === 0)).toBe(true);
    } finally {
      await target.drop();
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    }
  });
});

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { Pool } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { connectDb } from '../../db/index.js';
import { hashPassword } from '../../domain/users/password.js';
import { chatCompletionBody, MockUpstream, sendJson } from '../../relay/testing/mock-upstream.js';
import { insertChannel, insertToken, insertUser } from '../../test-support/seed-rows.js';
import { startServerProcess, type ServerProcess } from '../../test-support/server-process.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const USAGE = { prompt_tokens: 100, completion_tokens: 100, total_tokens: 200 };
const START_QUOTA = 1_000_000_000;
const UPSTREAM_KEY = 'sk-upstream-sealed-0123456789';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run backup -- ...` as an operator runs it: the CLI through tsx, configured by the environment. */
const runBackup = (args: string[], env: Record<string, string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });

// One node name before and after the restore: the restored gateway gives back the calls in flight at the backup.
const serverEnv = (sqlitePath: string) => ({
  SQLITE_PATH: sqlitePath,
  MODELGATE_SECRET_KEY: '',
  SESSION_SECRET: 'backup-test',
  NODE_NAME: 'backup-node',
  BATCH_UPDATE_INTERVAL: '1',
  QUOTA_WAIT_SECONDS: '1',
  GLOBAL_API_RATE_LIMIT: '0',
  GLOBAL_WEB_RATE_LIMIT: '0',
  CRITICAL_RATE_LIMIT: '0',
});

/** The books of one SQLite file: per user quota, used, held in leases, and the sum and count of its consume logs. */
function books(file: string) {
  const database = new SqliteDatabase(file, { fileMustExist: true });
  try {
    const users = database.prepare('select id, username, quota, used_quota from users').all() as {
      id: number;
      username: string;
      quota: number;
      used_quota: number;
    }[];
    const logged = new Map(
      (
        database.prepare('select user_id, sum(quota) as total, count(*) as n from logs where type = 2 group by user_id').all() as {
          user_id: number;
          total: number;
          n: number;
        }[]
      ).map((row) => [row.user_id, row]),
    );
    const leased = new Map(
      (
        database.prepare('select entity_id, sum(amount) as total from quota_leases where kind = 1 group by entity_id').all() as {
          entity_id: number;
          total: number;
        }[]
      ).map((row) => [row.entity_id, row.total]),
    );
    const logs = (database.prepare('select count(*) as n from logs').get() as { n: number }).n;
    return { users, logged, leased, logs };
  } finally {
    database.close();
  }
}

/** Keeps `concurrency` calls going until stopped. */
function load(url: string, keys: string[], concurrency: number) {
  const pool = new Pool(url, { connections: concurrency });
  let running = true;
  let served = 0;
  const loops = Array.from({ length: concurrency }, async (_, index) => {
    for (let round = 0; running; round += 1) {
      const response = await pool.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${keys[(index + round) % keys.length]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await response.body.text();
      if (response.statusCode === 200) served += 1;
    }
  });
  return {
    served: () => served,
    async stop() {
      running = false;
      await Promise.all(loops);
      await pool.destroy();
    },
  };
}

async function signIn(url: string, username: string, password: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await response.json()) as { success: boolean; message: string; data: { id: number } };
  if (!body.success) throw new Error(`login as ${username} failed: ${body.message}`);
  const cookie = (response.headers.getSetCookie().find((line) => line.startsWith('session=')) ?? '').split(';')[0]!;
  return { cookie, 'new-api-user': String(body.data.id) };
}

async function getData<T>(url: string, path: string, headers: Record<string, string>): Promise<T> {
  const body = (await (await fetch(`${url}${path}`, { headers })).json()) as { success: boolean; message: string; data: T };
  if (!body.success) throw new Error(`GET ${path}: ${body.message}`);
  return body.data;
}

describe('npm run backup on SQLite', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('backs up under load; the restore in a fresh directory starts, signs in and holds the same balanced books', async () => {
    const upstream = await new MockUpstream().start();
    cleanups.push(() => upstream.close());
    upstream.respond(async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
      sendJson(response, 200, chatCompletionBody('ok', USAGE));
    });

    const dir = mkdtempSync(join(tmpdir(), 'modelgate-backup-'));
    const restoreDir = mkdtempSync(join(tmpdir(), 'modelgate-restore-'));
    cleanups.push(() => {
      rmSync(dir, { recursive: true, force: true });
      rmSync(restoreDir, { recursive: true, force: true });
    });
    const sqlitePath = join(dir, 'modelgate.db');
    // No MODELGATE_SECRET_KEY: the key lives in the file beside the database, and must travel with the backup.
    const db = await connectDb({ sqlitePath, sqlDsn: '', migrate: true });
    await insertChannel(db, { key: UPSTREAM_KEY, name: 'c0', baseUrl: upstream.url, models: ['gpt-4o-mini'], groups: ['default'] });
    // The first start makes root only on an empty database: this one has users, so root is made here.
    await insertUser(db, { username: 'root', password: await hashPassword('123456'), role: 100, quota: 0 });
    const password = await hashPassword('saver-pass-1');
    const keys: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const userId = await insertUser(db, { username: `saver${index}`, password, quota: START_QUOTA });
      keys.push((await insertToken(db, userId)).apiKey);
    }
    await db.close();

    const first: ServerProcess = await startServerProcess(serverEnv(sqlitePath));
    cleanups.push(() => first.stop());
    const traffic = load(first.url, keys, 24);
    cleanups.push(() => traffic.stop());
    const deadline = Date.now() + 30_000;
    while (books(sqlitePath).logs === 0) {
      if (Date.now() > deadline) throw new Error(`no log was written in 30 s: ${first.output.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const out = join(dir, 'backups', 'under-load.db');
    const backup = await runBackup(['--out', out], serverEnv(sqlitePath));
    const servedAtBackup = traffic.served();
    await traffic.stop();
    await first.stop();
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`to ${out} (`);
    expect(backup.stdout).toContain(`the secret key is copied to ${out}.key`);
    expect(readFileSync(`${out}.key`, 'utf8')).toBe(readFileSync(`${sqlitePath}.key`, 'utf8'));
    expect(statSync(out).size).toBeGreaterThan(0);
    const atBackup = books(out);
    expect(backup.stdout).toContain(`users 4, tokens 3, logs ${atBackup.logs}`);
    expect(atBackup.logs).toBeGreaterThan(0);
    // The live database went on past the backup's moment.
    const liveLogs = books(sqlitePath).logs;
    expect(liveLogs).toBeGreaterThan(atBackup.logs);
    // ... and calls were under way at its moment: their holds are in the backup, to be given back.
    const held = [...atBackup.leased.values()].reduce((total, amount) => total + amount, 0);
    expect(held).toBeGreaterThan(0);

    // The backup is one moment of the books: each user's balance, holds and logged spend add up.
    for (const user of atBackup.users.filter((row) => row.username.startsWith('saver'))) {
      expect(user.used_quota, user.username).toBe(atBackup.logged.get(user.id)?.total ?? 0);
      expect(user.quota + user.used_quota + (atBackup.leased.get(user.id) ?? 0), user.username).toBe(START_QUOTA);
    }

    const restore = await runBackup(['restore', out, '--to', restoreDir], serverEnv(sqlitePath));
    expect(restore.code, restore.stderr).toBe(0);
    const restoredPath = join(restoreDir, 'modelgate.db');
    expect(restore.stdout).toContain(`the secret key is restored to ${restoredPath}.key`);
    const again = await runBackup(['restore', out, '--to', restoreDir], serverEnv(sqlitePath));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`a database already exists at ${restoredPath}`);

    const second = await startServerProcess(serverEnv(restoredPath));
    cleanups.push(() => second.stop());
    // A relay call waits for the relay to be ready (the backup's holds given back); it goes out with the sealed key opened.
    const probe = await fetch(`${second.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'after the restore' }] }),
    });
    expect(probe.status).toBe(200);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    await second.stop();

    const restored = books(restoredPath);
    expect(restored.logs).toBe(atBackup.logs + 1);
    expect([...restored.leased.values()].reduce((total, amount) => total + amount, 0)).toBe(0);
    const third = await startServerProcess(serverEnv(restoredPath));
    cleanups.push(() => third.stop());
    const root = await signIn(third.url, 'root', '123456');
    for (const user of restored.users.filter((row) => row.username.startsWith('saver'))) {
      const asRoot = await getData<{ quota: number; used_quota: number }>(third.url, `/api/user/${user.id}`, root);
      const own = await getData<{ quota: number; used_quota: number }>(third.url, '/api/user/self', await signIn(third.url, user.username, 'saver-pass-1'));
      expect(own).toMatchObject({ quota: user.quota, used_quota: user.used_quota });
      expect(asRoot).toMatchObject({ quota: user.quota, used_quota: user.used_quota });
      expect(user.used_quota, user.username).toBe(restored.logged.get(user.id)?.total ?? 0);
      expect(user.quota + user.used_quota, user.username).toBe(START_QUOTA);
      // What the backup held for this user, minus the one call after the restore.
      const callAfter = user.username === 'saver0' ? 1 : 0;
      expect(restored.logged.get(user.id)?.n ?? 0).toBe((atBackup.logged.get(user.id)?.n ?? 0) + callAfter);
    }
    console.log(
      `[backup] ${servedAtBackup} calls served when the backup finished; the backup holds ${atBackup.logs} logs (the live database ${liveLogs} at the stop), ${held} quota held by calls in flight, ${statSync(out).size} bytes`,
    );
  }, 60_000);

  it('refuses a missing database, an existing --out and a bad restore file with exit code 2; restore --force replaces a database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-backup-bad-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const env = { SQLITE_PATH: join(dir, 'missing.db'), MODELGATE_SECRET_KEY: '' };
    const missing = await runBackup([], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no database at ${join(dir, 'missing.db')}`);
    expect(existsSync(join(dir, 'backups'))).toBe(false);
    const notBackup = await runBackup(['restore', join(dir, 'nowhere.db'), '--to', join(dir, 'r')], env);
    expect(notBackup.code).toBe(2);
    expect(notBackup.stderr).toContain('no backup file at');
    // --force replaces a database: the stale WAL beside it goes too, the backup's rows are what remain.
    const live = join(dir, 'live.db');
    await (await connectDb({ sqlitePath: live, sqlDsn: '', migrate: true })).close();
    const liveEnv = { SQLITE_PATH: live, MODELGATE_SECRET_KEY: '' };
    const taken = await runBackup(['--out', join(dir, 'b.db')], liveEnv);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stdout).toContain('users 0, tokens 0, logs 0');
    expect((await runBackup(['--out', join(dir, 'b.db')], liveEnv)).stderr).toContain('already exists');
    const over = await runBackup(['restore', join(dir, 'b.db'), '--force'], liveEnv);
    expect(over.code, over.stderr).toBe(0);
    expect(over.stdout).toContain(`restored ${join(dir, 'b.db')} to ${live}`);
    expect(existsSync(`${live}-wal`)).toBe(false);
    const usage = await runBackup(['--bogus'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run backup');
  });

  it('prints the pg_dump and mysqldump commands for SQL_DSN, password masked, and exits 0', async () => {
    const postgres = await runBackup([], { SQL_DSN: 'postgres://gate:s3cret@db.internal:5433/modelgate' });
    expect(postgres.code, postgres.stderr).toBe(0);
    expect(postgres.stdout).toMatch(
      /PGPASSWORD='\*\*\*' pg_dump --format=custom --file=modelgate-\d{8}-\d{6}\.dump -h db\.internal -p 5433 -U gate -d modelgate/,
    );
    expect(postgres.stdout).toContain('MODELGATE_SECRET_KEY');
    const mysql = await runBackup([], { SQL_DSN: 'mysql://gate:s3cret@db.internal/modelgate' });
    expect(mysql.code, mysql.stderr).toBe(0);
    expect(mysql.stdout).toMatch(/mysqldump --single-transaction .* -h db\.internal -P 3306 -u gate modelgate > modelgate-\d{8}-\d{6}\.sql/);
    for (const run of [postgres, mysql]) expect(run.stdout).not.toContain('s3cret');
  });
});

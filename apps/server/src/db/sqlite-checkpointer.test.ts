import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { connectDb } from './index.js';
import { CHECKPOINT_WAL_BYTES, MAX_WAL_PAGES, SqliteCheckpointer } from './sqlite-checkpointer.js';
import { testSecretKey } from '../test-support/dialects.js';

const openWal = (path: string) => {
  const database = new SqliteDatabase(path);
  database.pragma('journal_mode = WAL');
  database.exec('create table if not exists rows (id integer primary key, text text)');
  return database;
};

/** Rows of about a page (4 KB) in transactions of 1,000: about 4 MB of log each. */
const writeRows = (database: SqliteDatabase.Database, transactions: number) => {
  const insert = database.prepare('insert into rows (text) values (?)');
  const write = database.transaction(() => {
    for (let index = 0; index < 1000; index += 1) insert.run('x'.repeat(3900));
  });
  for (let count = 0; count < transactions; count += 1) write();
};

describe('WAL checkpoints on a worker thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-checkpoint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('commits never checkpoint; the worker copies the whole log into the file while the connection stays open', async () => {
    const path = join(dir, 'direct.db');
    const database = openWal(path);
    const errors: string[] = [];
    const checkpointer = new SqliteCheckpointer(database, path, (message) => errors.push(message));
    try {
      expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(MAX_WAL_PAGES);
      writeRows(database, 3);
      // No commit folded the log in: it holds every frame written (SQLite alone would have stopped near 1,000 pages).
      expect(checkpointer.walBytes()).toBeGreaterThan(2 * CHECKPOINT_WAL_BYTES);
      const result = await checkpointer.checkpoint();
      expect(result.ok).toBe(true);
      expect(result.log).toBeGreaterThan(2000);
      expect(result.checkpointed).toBe(result.log);
      // The file has the rows without the log: a reader that ignores the log sees them.
      database.pragma('wal_checkpoint(TRUNCATE)');
      expect(checkpointer.walBytes()).toBe(0);
      expect(database.prepare('select count(*) as n from rows').get()).toEqual({ n: 3000 });
      expect(errors).toEqual([]);
    } finally {
      await checkpointer.close();
      database.close();
    }
  });

  it('writes that never pause cannot grow the log past its bound', async () => {
    // A clear of millions of logs: a write transaction after every turn of the event loop, for
    // longer than the worker's checkpoints take. A bound of 500 pages here (10,000 in the server);
    // a commit may pass it by what was written while the worker's checkpoint held the lock.
    const path = join(dir, 'busy.db');
    const database = openWal(path);
    const checkpointer = new SqliteCheckpointer(database, path, undefined, 500);
    try {
      const insert = database.prepare('insert into rows (text) values (?)');
      const write = database.transaction(() => {
        for (let index = 0; index < 100; index += 1) insert.run('x'.repeat(3900));
      });
      let largest = 0;
      let written = 0;
      // About a page a row: 30 times the bound, the size the log reached without one.
      while (written < 30 * 500) {
        write();
        written += 100;
        largest = Math.max(largest, checkpointer.walBytes());
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(largest).toBeLessThan(6 * 500 * 4096);
      expect(database.prepare('select count(*) as n from rows').get()).toEqual({ n: written });
    } finally {
      await checkpointer.close();
      database.close();
    }
  });

  it('the log past 1,000 pages starts a checkpoint by itself within a few seconds', async () => {
    const path = join(dir, 'timer.db');
    const database = openWal(path);
    const checkpointer = new SqliteCheckpointer(database, path);
    try {
      writeRows(database, 2);
      const deadline = Date.now() + 10_000;
      while (checkpointer.completed === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(checkpointer.completed).toBeGreaterThan(0);
    } finally {
      await checkpointer.close();
      database.close();
    }
  });

  it("is the server's connection's way (connectDb backgroundCheckpoints), and closing leaves no log behind", async () => {
    const sqlitePath = join(dir, 'gateway.db');
    const errors: string[] = [];
    const db = await connectDb({
      sqlitePath,
      sqlDsn: '',
      migrate: true,
      secretKey: testSecretKey,
      backgroundCheckpoints: { onError: (message) => errors.push(message) },
    });
    expect(db.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(MAX_WAL_PAGES);
    await db.close();
    expect(existsSync(`${sqlitePath}-wal`)).toBe(false);
    // Tools open it without: SQLite's own checkpoints.
    const tool = await connectDb({ sqlitePath, sqlDsn: '', migrate: false, secretKey: testSecretKey });
    expect(tool.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await tool.close();
    expect(errors).toEqual([]);
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { connectDb, type Db, type DialectName } from '../db/index.js';
import { parseSecretKey } from '../lib/secret-box.js';

/** The fixed test key (vitest.config.ts): what the servers a test spawns use too, and PostgreSQL and MySQL need. */
export const testSecretKey = parseSecretKey(process.env.MODELGATE_SECRET_KEY ?? '');

/**
 * Fresh databases on each supported dialect, for the database-facing tests. PostgreSQL and
 * MariaDB are real servers started by scripts/services.sh (npm test runs it); when one is not
 * reachable the test fails, it is never skipped.
 */
export const TEST_PG_URL = process.env.MODELGATE_TEST_PG ?? 'postgres://modelgate:modelgate@127.0.0.1:5432/modelgate_test';
export const TEST_MYSQL_URL = process.env.MODELGATE_TEST_MYSQL ?? 'mysql://modelgate:modelgate@127.0.0.1:3306/modelgate_test';

export const DIALECTS: DialectName[] = ['sqlite', 'postgres', 'mysql'];

export interface FreshDb {
  db: Db;
  /** The SQL_DSN (or '' for SQLite) and SQLite path that open this same database. */
  sqlDsn: string;
  sqlitePath: string;
  drop(): Promise<void>;
}

const withDatabase = (url: string, name: string) => {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
};

export async function createFreshDb(dialect: DialectName, { migrate = true } = {}): Promise<FreshDb> {
  const name = `modelgate_t_${randomBytes(5).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-db-'));
    const sqlitePath = join(dir, 'test.db');
    const db = await connectDb({ sqlitePath, sqlDsn: '', migrate, secretKey: testSecretKey });
    return {
      db,
      sqlDsn: '',
      sqlitePath,
      drop: async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect().catch((error: Error) => {
      throw new Error(`PostgreSQL test server unreachable at ${TEST_PG_URL} (run scripts/services.sh): ${error.message}`);
    });
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const sqlDsn = withDatabase(TEST_PG_URL, name);
    const db = await connectDb({ sqlitePath: '', sqlDsn, migrate, secretKey: testSecretKey });
    return {
      db,
      sqlDsn,
      sqlitePath: '',
      drop: async () => {
        await db.close();
        const cleaner = new pg.Client({ connectionString: TEST_PG_URL });
        await cleaner.connect();
        await cleaner.query(`DROP DATABASE IF EXISTS ${name}`);
        await cleaner.end();
      },
    };
  }
  const admin = await createConnection(TEST_MYSQL_URL).catch((error: Error) => {
    throw new Error(`MariaDB test server unreachable at ${TEST_MYSQL_URL} (run scripts/services.sh): ${error.message}`);
  });
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  await admin.end();
  const sqlDsn = withDatabase(TEST_MYSQL_URL, name);
  const db = await connectDb({ sqlitePath: '', sqlDsn, migrate, secretKey: testSecretKey });
  return {
    db,
    sqlDsn,
    sqlitePath: '',
    drop: async () => {
      await db.close();
      const cleaner = await createConnection(TEST_MYSQL_URL);
      await cleaner.query(`DROP DATABASE IF EXISTS ${name}`);
      await cleaner.end();
    },
  };
}

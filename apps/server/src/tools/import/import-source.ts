import { existsSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import pg from 'pg';

/**
 * A one-api/new-api database opened read-only-in-spirit with the drivers modelgate already has:
 * a SQLite file path, `postgres://…` or `mysql://…`. Rows are read a page at a time, by id where
 * the table has one, so a log table of millions never sits in memory.
 */
export interface ImportSource {
  readonly label: string;
  /** The table's column names, or undefined when the source has no such table. */
  columns(table: string): Promise<string[] | undefined>;
  count(table: string): Promise<number>;
  /** Up to `limit` rows with id > afterId, by id. */
  pageById(table: string, afterId: number, limit: number): Promise<Record<string, unknown>[]>;
  /** Up to `limit` rows from `offset`, in the order of `orderBy` (tables without an id). */
  pageByOffset(table: string, orderBy: readonly string[], offset: number, limit: number): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export class ImportSourceError extends Error {}

/** The DSN with its password replaced, for messages. */
export function redactDsn(dsn: string): string {
  try {
    const url = new URL(dsn);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return dsn.replace(/\/\/[^@/]*@/, '//***@');
  }
}

export async function openImportSource(location: string): Promise<ImportSource> {
  if (/^postgres(ql)?:\/\//.test(location)) return openPostgres(location);
  if (location.startsWith('mysql://')) return openMysql(location);
  if (/^[a-z]+:\/\//i.test(location)) {
    throw new ImportSourceError(`unsupported source ${redactDsn(location)}: give a SQLite file path, postgres://… or mysql://…`);
  }
  if (!existsSync(location)) throw new ImportSourceError(`no SQLite file at ${location}`);
  return openSqlite(location);
}

function openSqlite(path: string): ImportSource {
  let database: SqliteDatabase.Database;
  try {
    database = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
    database.pragma('busy_timeout = 10000');
    database.prepare('select count(*) from sqlite_master').get();
  } catch (error) {
    throw new ImportSourceError(`cannot read ${path} as a SQLite database: ${(error as Error).message}`);
  }
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  return {
    label: path,
    async columns(table) {
      const rows = database.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string }[];
      return rows.length === 0 ? undefined : rows.map((row) => row.name);
    },
    async count(table) {
      return Number((database.prepare(`select count(*) as n from ${quote(table)}`).get() as { n: number }).n);
    },
    async pageById(table, afterId, limit) {
      return database.prepare(`select * from ${quote(table)} where id > ? order by id limit ?`).all(afterId, limit) as Record<string, unknown>[];
    },
    async pageByOffset(table, orderBy, offset, limit) {
      const order = orderBy.map(quote).join(', ');
      return database.prepare(`select * from ${quote(table)} order by ${order} limit ? offset ?`).all(limit, offset) as Record<string, unknown>[];
    },
    async close() {
      database.close();
    },
  };
}

async function openPostgres(dsn: string): Promise<ImportSource> {
  const client = new pg.Client({ connectionString: dsn });
  try {
    await client.connect();
  } catch (error) {
    throw new ImportSourceError(`cannot connect to ${redactDsn(dsn)}: ${(error as Error).message}`);
  }
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  return {
    label: redactDsn(dsn),
    async columns(table) {
      const result = await client.query<{ column_name: string }>(
        'select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position',
        [table],
      );
      return result.rows.length === 0 ? undefined : result.rows.map((row) => row.column_name);
    },
    async count(table) {
      const result = await client.query<{ n: string | number }>(`select count(*) as n from ${quote(table)}`);
      return Number(result.rows[0]?.n ?? 0);
    },
    async pageById(table, afterId, limit) {
      return (await client.query(`select * from ${quote(table)} where id > $1 order by id limit $2`, [afterId, limit])).rows;
    },
    async pageByOffset(table, orderBy, offset, limit) {
      const order = orderBy.map(quote).join(', ');
      return (await client.query(`select * from ${quote(table)} order by ${order} limit $1 offset $2`, [limit, offset])).rows;
    },
    async close() {
      await client.end();
    },
  };
}

async function openMysql(dsn: string): Promise<ImportSource> {
  let connection: Connection;
  try {
    // Datetimes (gorm.DeletedAt) read as UTC, as GORM's MySQL driver writes them by default (loc=UTC).
    connection = await createConnection({
      uri: dsn,
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: true,
      charset: 'utf8mb4',
      timezone: 'Z',
    });
  } catch (error) {
    throw new ImportSourceError(`cannot connect to ${redactDsn(dsn)}: ${(error as Error).message}`);
  }
  const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``;
  const rowsOf = async (query: string, values: unknown[]) => {
    const [rows] = await connection.query<RowDataPacket[]>(query, values);
    return rows as Record<string, unknown>[];
  };
  return {
    label: redactDsn(dsn),
    async columns(table) {
      const rows = await rowsOf(
        'select column_name as name from information_schema.columns where table_schema = database() and table_name = ? order by ordinal_position',
        [table],
      );
      return rows.length === 0 ? undefined : rows.map((row) => String(row.name));
    },
    async count(table) {
      const rows = await rowsOf(`select count(*) as n from ${quote(table)}`, []);
      return Number(rows[0]?.n ?? 0);
    },
    async pageById(table, afterId, limit) {
      return rowsOf(`select * from ${quote(table)} where id > ? order by id limit ?`, [afterId, limit]);
    },
    async pageByOffset(table, orderBy, offset, limit) {
      const order = orderBy.map(quote).join(', ');
      return rowsOf(`select * from ${quote(table)} order by ${order} limit ? offset ?`, [limit, offset]);
    },
    async close() {
      await connection.end();
    },
  };
}

import { sql, type Kysely, type Migration } from 'kysely';
import { usernameKey } from '../../lib/username.js';
import type { DialectName } from '../db-types.js';

/**
 * Server-side sessions (so logout, a password change, a ban or a deletion ends them on every node)
 * and `users.username_key`, the folded form usernames are kept unique in.
 */
export function sessionsAndUsernameKeys(dialect: DialectName): Migration {
  const idType = dialect === 'postgres' ? 'bigserial' : dialect === 'mysql' ? 'bigint' : 'integer';

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('sessions')
        .addColumn('id', idType, (col) => (dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement()))
        .addColumn('token_hash', sql`varchar(64)`, (col) => col.notNull())
        .addColumn('user_id', 'bigint', (col) => col.notNull())
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
        .addColumn('expires_at', 'bigint', (col) => col.notNull())
        .addColumn('ip', sql`varchar(64)`, (col) => col.notNull().defaultTo(''))
        .addColumn('user_agent', sql`varchar(255)`, (col) => col.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('idx_sessions_token_hash').unique().on('sessions').column('token_hash').execute();
      await db.schema.createIndex('idx_sessions_user_id').on('sessions').column('user_id').execute();
      await db.schema.createIndex('idx_sessions_expires_at').on('sessions').column('expires_at').execute();

      // Nullable: rows written straight into the table (imports, tests) need not compute it, and
      // every dialect lets a unique index hold many NULLs. Binary on MySQL: its default collation
      // would also merge accents (zoe = zoë), and which names are the same is usernameKey's call.
      const keyType = dialect === 'mysql' ? sql`varchar(191) character set utf8mb4 collate utf8mb4_bin` : sql`varchar(191)`;
      await db.schema.alterTable('users').addColumn('username_key', keyType).execute();
      const rows = (await db.selectFrom('users').select(['id', 'username']).orderBy('id').execute()) as { id: number | string; username: string }[];
      const seen = new Set<string>();
      for (const row of rows) {
        let key = usernameKey(row.username);
        // Names that already collide (Root and root) both stay; the later one's key is made unique
        // so this migration never fails on an existing database.
        while (seen.has(key)) key = `${key}#${row.id}`;
        seen.add(key);
        await db.updateTable('users').set({ username_key: key }).where('id', '=', row.id).execute();
      }
      await db.schema.createIndex('idx_users_username_key').unique().on('users').column('username_key').execute();
    },
    async down(db: Kysely<any>) {
      const dropKeyIndex = db.schema.dropIndex('idx_users_username_key');
      await (dialect === 'mysql' ? dropKeyIndex.on('users') : dropKeyIndex).execute();
      await db.schema.alterTable('users').dropColumn('username_key').execute();
      await db.schema.dropTable('sessions').ifExists().execute();
    },
  };
}

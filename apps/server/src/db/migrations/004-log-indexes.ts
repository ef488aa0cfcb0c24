import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * Every log filter paired with id, so a filtered page ("… where model_name = ? order by id desc
 * limit 10") walks one index backwards and stops after ten rows instead of sorting every match.
 * SQLite and InnoDB already append the primary key to a secondary index; PostgreSQL does not, so
 * there the single-column indexes of 001 left each filtered page sorting all its matches. The
 * composites replace them (same write cost) and serve the equality lookups they served.
 */
const REPLACED: [oldName: string, newName: string, column: string][] = [
  ['idx_logs_username', 'idx_logs_username_id', 'username'],
  ['idx_logs_token_name', 'idx_logs_token_name_id', 'token_name'],
  ['idx_logs_model_name', 'idx_logs_model_name_id', 'model_name'],
  ['idx_logs_channel_id', 'idx_logs_channel_id_id', 'channel_id'],
  ['idx_logs_group', 'idx_logs_group_id', 'group'],
];

export function logIndexes(dialect: DialectName): Migration {
  const drop = (db: Kysely<any>, name: string) => {
    const statement = db.schema.dropIndex(name);
    return (dialect === 'mysql' ? statement.on('logs') : statement).execute();
  };
  return {
    async up(db: Kysely<any>) {
      for (const [oldName, newName, column] of REPLACED) {
        await db.schema.createIndex(newName).on('logs').columns([column, 'id']).execute();
        await drop(db, oldName);
      }
      // The type filter alone (the console's type select) and a user's own rows of one type.
      await db.schema.createIndex('idx_logs_type_id').on('logs').columns(['type', 'id']).execute();
      await db.schema.createIndex('idx_logs_user_type_id').on('logs').columns(['user_id', 'type', 'id']).execute();
    },
    async down(db: Kysely<any>) {
      await drop(db, 'idx_logs_user_type_id');
      await drop(db, 'idx_logs_type_id');
      for (const [oldName, newName, column] of REPLACED) {
        await db.schema.createIndex(oldName).on('logs').column(column).execute();
        await drop(db, newName);
      }
    },
  };
}

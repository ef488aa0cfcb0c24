import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';
import { createLogPartition, ensureLogPartitions, monthsHeldBy } from '../log-partitions.js';

/** The logs indexes of migration 007, rebuilt on the partitioned table under the same names. */
const PAYLOAD = ['type', 'created_at', 'quota', 'user_id'];
const INDEXES: [name: string, columns: string[]][] = [
  ...(['username', 'token_name', 'model_name', 'channel_id', 'group'] as const).map((column): [string, string[]] => [
    `idx_logs_${column}_covering`,
    [column, 'id', ...PAYLOAD],
  ]),
  ['idx_logs_type_covering', ['type', 'id', 'created_at', 'quota']],
  ['idx_logs_user_id_covering', ['user_id', 'id', 'type', 'created_at', 'quota']],
  ['idx_logs_created_at_covering', ['created_at', 'type', 'quota']],
  ['idx_logs_token_id', ['token_id']],
];

/**
 * PostgreSQL: the logs table becomes a partitioned one, by created_at, one partition per UTC month
 * (db/log-partitions.ts). A table with rows is converted in place: the old table is renamed, the
 * partitioned one created with the same columns, defaults and id sequence (new-api's column names
 * and the ids are kept; the next id continues the sequence), a partition made for every month the
 * rows cover plus the months ahead and a default one, the rows copied, the indexes built after
 * the copy (faster than maintaining them row by row), and the old table dropped. The primary key
 * becomes (id, created_at): PostgreSQL requires the partition key in it; ids stay unique because
 * they all come from the one sequence. Takes about a minute per few million rows; the table is
 * locked meanwhile (the master migrates before it serves).
 *
 * SQLite keeps a plain table (its clearing deletes in short batches); MySQL/MariaDB are
 * partitioned by migration 020.
 */
export function logPartitions(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`alter table logs rename to logs_unpartitioned`.execute(db);
      await sql`alter table logs_unpartitioned rename constraint logs_pkey to logs_unpartitioned_pkey`.execute(db);
      for (const [name] of INDEXES) await sql`drop index if exists ${sql.ref(name)}`.execute(db);
      // LIKE copies the columns in order with their types, NOT NULLs and defaults (the id's
      // nextval of logs_id_seq among them).
      await sql`create table logs (like logs_unpartitioned including defaults) partition by range (created_at)`.execute(db);
      await sql`create table logs_default partition of logs default`.execute(db);
      for (const month of await monthsHeldBy(db, 'logs_unpartitioned')) await createLogPartition(db, month);
      await ensureLogPartitions(db);
      await sql`insert into logs select * from logs_unpartitioned`.execute(db);
      await sql`alter table logs add constraint logs_pkey primary key (id, created_at)`.execute(db);
      for (const [name, columns] of INDEXES) await db.schema.createIndex(name).on('logs').columns(columns).execute();
      await sql`alter sequence logs_id_seq owned by logs.id`.execute(db);
      await sql`drop table logs_unpartitioned`.execute(db);
      await sql`analyze logs`.execute(db);
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`alter table logs rename to logs_partitioned`.execute(db);
      await sql`alter table logs_partitioned rename constraint logs_pkey to logs_partitioned_pkey`.execute(db);
      for (const [name] of INDEXES) await sql`drop index if exists ${sql.ref(name)}`.execute(db);
      await sql`create table logs (like logs_partitioned including defaults)`.execute(db);
      await sql`insert into logs select * from logs_partitioned`.execute(db);
      await sql`alter table logs add constraint logs_pkey primary key (id)`.execute(db);
      for (const [name, columns] of INDEXES) await db.schema.createIndex(name).on('logs').columns(columns).execute();
      await sql`alter sequence logs_id_seq owned by logs.id`.execute(db);
      await sql`drop table logs_partitioned`.execute(db);
    },
  };
}

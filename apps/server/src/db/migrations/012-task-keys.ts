import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Which of its channel's keys a task was submitted with (`key_hash`: the first 16 hex digits of the
 * key's SHA-256, never the key), on `tasks` and `midjourneys`: its polls ask the upstream with the
 * same key, which alone may see the task (new-api #6870). '' for tasks from before.
 */
export function taskKeys(): Migration {
  return {
    async up(db: Kysely<any>) {
      for (const table of ['tasks', 'midjourneys']) {
        await db.schema
          .alterTable(table)
          .addColumn('key_hash', sql`varchar(32)`, (col) => col.notNull().defaultTo(''))
          .execute();
      }
    },
    async down(db: Kysely<any>) {
      for (const table of ['tasks', 'midjourneys']) await db.schema.alterTable(table).dropColumn('key_hash').execute();
    },
  };
}

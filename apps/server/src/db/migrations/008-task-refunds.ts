import type { Kysely, Migration } from 'kysely';

/**
 * What a task's money needs beyond new-api's columns, on `midjourneys` and `tasks`:
 * - `token_id`: the key that paid, so a refund gives back to the token what it took, and the
 *   token's remaining quota agrees with its logs;
 * - `refunded`: 1 once a failed task's quota went back. The refund sets it in the same transaction
 *   that credits the user and token (`WHERE refunded = 0`), so it happens exactly once, whichever
 *   node runs it and however often it is retried after a crash;
 * - an index on (status, submit_time) for the pollers' look at unfinished tasks and failed ones
 *   awaiting their refund.
 */
export function taskRefunds(): Migration {
  return {
    async up(db: Kysely<any>) {
      for (const table of ['midjourneys', 'tasks']) {
        await db.schema
          .alterTable(table)
          .addColumn('token_id', 'integer', (col) => col.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable(table)
          .addColumn('refunded', 'integer', (col) => col.notNull().defaultTo(0))
          .execute();
        await db.schema.createIndex(`idx_${table}_status_submit`).on(table).columns(['status', 'submit_time']).execute();
      }
    },
    async down(db: Kysely<any>) {
      for (const table of ['midjourneys', 'tasks']) {
        await db.schema.dropIndex(`idx_${table}_status_submit`).execute();
        await db.schema.alterTable(table).dropColumn('refunded').execute();
        await db.schema.alterTable(table).dropColumn('token_id').execute();
      }
    },
  };
}

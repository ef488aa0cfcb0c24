import type { Kysely, Migration } from 'kysely';

/** The rate-limit figures of a token and of a user (relay/rate-limits/): 0 is no limit. */
export const RATE_LIMIT_COLUMNS = ['rpm_limit', 'tpm_limit', 'rpd_limit', 'concurrency_limit'] as const;

/**
 * Rate limits per token and per user (issue 27): requests a minute, tokens a minute, requests a
 * day and calls in flight at once, each 0 (no limit) on the rows from before.
 */
export function rateLimits(): Migration {
  return {
    async up(db: Kysely<any>) {
      for (const table of ['tokens', 'users']) {
        for (const column of RATE_LIMIT_COLUMNS) {
          await db.schema
            .alterTable(table)
            .addColumn(column, 'integer', (col) => col.notNull().defaultTo(0))
            .execute();
        }
      }
    },
    async down(db: Kysely<any>) {
      for (const table of ['tokens', 'users']) {
        for (const column of RATE_LIMIT_COLUMNS) await db.schema.alterTable(table).dropColumn(column).execute();
      }
    },
  };
}

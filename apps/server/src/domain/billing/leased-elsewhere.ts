import { sql, type AliasedRawBuilder, type RawBuilder } from 'kysely';
import type { LeaseKind } from './lease-book.js';

/**
 * The lease rows of processes other than `holder` on the payer whose id `entityId` is (a value, or
 * the `users.id` / `tokens.id` of the row a query reads). Their charges show once they flush.
 */
export const leasedElsewhere = (kind: LeaseKind, entityId: number | RawBuilder<unknown>, holder: string): RawBuilder<number> =>
  sql<number>`coalesce((select sum(quota_leases.amount) from quota_leases where quota_leases.kind = ${kind} and quota_leases.entity_id = ${entityId} and quota_leases.holder <> ${holder}), 0)`;

/**
 * What other processes lease of a user's or token's balance, read with its row (a column of the
 * query on `table`). They may serve calls from it, and a balance set while they do leaves the
 * column short by it (billing/balance-set.ts); their charges show once they flush.
 */
export type LeasedElsewhere = AliasedRawBuilder<number, 'leased_elsewhere'>;

export const leasedElsewhereColumn = (kind: LeaseKind, table: 'users' | 'tokens', holder: string): LeasedElsewhere =>
  leasedElsewhere(kind, sql.ref(`${table}.id`), holder).as('leased_elsewhere');

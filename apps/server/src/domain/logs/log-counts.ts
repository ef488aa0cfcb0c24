import { LogType } from '@modelgate/contract';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { BUCKET_SECONDS, bucketOf, RollupGrain, type RollupGrainValue } from '../../db/log-rollups.js';
import type { Database } from '../../db/schema.js';

/**
 * The log screen's total and the stat's quota from the rollups (db/log-rollups.ts): the whole
 * buckets inside the filter's time range from log_rollups, the partial buckets at its edges from
 * the logs themselves, so the answer is the same as counting every row. A filter no grain covers
 * (two dimensions other than a user and a model, a model pattern of too many names) answers
 * undefined, and the caller counts the logs as before.
 */

/** The log list's filters (log-query.ts's LogFilter), a model pattern resolved to the names it matches (undefined: too many to list). */
export interface CountingFilter {
  userId?: number;
  type: number;
  username: string;
  tokenName: string;
  modelName: string;
  modelNames?: string[];
  startTimestamp: number;
  endTimestamp: number;
  channel: number;
  group: string;
}

export interface LogTotals {
  count: number;
  quota: number;
}

/**
 * Counts and sums the logs a filter selects over [start, end] (0 = open), raw, with an optional
 * type. `short`: the range is at most two buckets long (a rollup's edges), so reading it from the
 * time index beats walking the filter's own index.
 */
export type RawTotals = (filter: CountingFilter, type: number, short: boolean) => Promise<LogTotals>;

type Where = ExpressionBuilder<Database, 'log_rollups'>;

/** The grain whose keys cover every dimension the filter uses, or undefined. */
export function grainFor(filter: CountingFilter): RollupGrainValue | undefined {
  const user = filter.userId !== undefined || filter.username !== '';
  const model = filter.modelName !== '';
  if (model && filter.modelName.includes('%') && filter.modelNames === undefined) return undefined;
  const others = [filter.tokenName !== '', filter.channel !== 0, filter.group !== ''];
  const otherCount = others.filter(Boolean).length;
  if (otherCount > 1 || (otherCount === 1 && (user || model))) return undefined;
  if (user && model) return RollupGrain.UserModel;
  if (user) return RollupGrain.User;
  if (model) return RollupGrain.Model;
  if (filter.tokenName !== '') return RollupGrain.Token;
  if (filter.channel !== 0) return RollupGrain.Channel;
  if (filter.group !== '') return RollupGrain.Group;
  return RollupGrain.All;
}

const modelNamesOf = (filter: CountingFilter): string[] => filter.modelNames ?? [filter.modelName];

/** The conditions on the grain's key columns, equalities first so the primary key or the names index is used. */
function keyConditions(eb: Where, grain: RollupGrainValue, filter: CountingFilter) {
  const conditions: Expression<SqlBool>[] = [eb('grain', '=', grain)];
  const inNames = (column: 'name_key' | 'model_key') => {
    const names = modelNamesOf(filter);
    return names.length === 0 ? sql<boolean>`1 = 0` : eb(column, 'in', names);
  };
  switch (grain) {
    case RollupGrain.All:
      conditions.push(eb('id_key', '=', 0), eb('name_key', '=', ''), eb('model_key', '=', ''));
      break;
    case RollupGrain.User:
    case RollupGrain.UserModel:
      if (filter.userId !== undefined) conditions.push(eb('id_key', '=', filter.userId));
      if (filter.username !== '') conditions.push(eb('name_key', '=', filter.username));
      conditions.push(grain === RollupGrain.User ? eb('model_key', '=', '') : inNames('model_key'));
      break;
    case RollupGrain.Token:
      conditions.push(eb('id_key', '=', 0), eb('name_key', '=', filter.tokenName), eb('model_key', '=', ''));
      break;
    case RollupGrain.Model:
      conditions.push(eb('id_key', '=', 0), inNames('name_key'), eb('model_key', '=', ''));
      break;
    case RollupGrain.Channel:
      conditions.push(eb('id_key', '=', filter.channel), eb('name_key', '=', ''), eb('model_key', '=', ''));
      break;
    case RollupGrain.Group:
      conditions.push(eb('id_key', '=', 0), eb('name_key', '=', filter.group), eb('model_key', '=', ''));
      break;
  }
  return conditions;
}

/**
 * The totals of the rows a filter selects with `type` (0: every type), or undefined when no grain
 * covers the filter. `raw` counts a time slice of the logs with the same filter.
 */
export async function totalsFromRollups(db: Db, filter: CountingFilter, type: number, raw: RawTotals): Promise<LogTotals | undefined> {
  const grain = grainFor(filter);
  if (grain === undefined) return undefined;
  const { startTimestamp: start, endTimestamp: end } = filter;
  // Whole buckets: [from, to); undefined = open on that side.
  const from = start !== 0 ? bucketOf(start + BUCKET_SECONDS - 1) : undefined;
  const to = end !== 0 ? bucketOf(end + 1) : undefined;
  // A range inside two buckets is all edge.
  if (from !== undefined && to !== undefined && from >= to) return raw(filter, type, true);
  const parts: Promise<LogTotals>[] = [];
  if (from !== undefined && from > start) parts.push(raw({ ...filter, startTimestamp: start, endTimestamp: from - 1 }, type, true));
  if (to !== undefined && end >= to) parts.push(raw({ ...filter, startTimestamp: to, endTimestamp: end }, type, true));
  parts.push(
    db.kysely
      .selectFrom('log_rollups')
      .select([sql<number | string | null>`sum(log_count)`.as('count'), sql<number | string | null>`sum(quota)`.as('quota')])
      .where((eb) => {
        const conditions = keyConditions(eb, grain, filter);
        if (type !== LogType.Unknown) conditions.push(eb('type', '=', type));
        if (from !== undefined) conditions.push(eb('bucket', '>=', from));
        if (to !== undefined) conditions.push(eb('bucket', '<', to));
        return eb.and(conditions);
      })
      .executeTakeFirst()
      .then((row) => ({ count: Number(row?.count ?? 0), quota: Number(row?.quota ?? 0) })),
  );
  const totals = await Promise.all(parts);
  return totals.reduce((sum, part) => ({ count: sum.count + part.count, quota: sum.quota + part.quota }), { count: 0, quota: 0 });
}

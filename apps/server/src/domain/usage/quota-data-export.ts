import { LogType } from '@modelgate/contract';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/index.js';
import type { LogBuffer, LogInsert } from '../logs/log-buffer.js';

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 86_400;
/** How often the export checks whether DataExportInterval has passed (the option may change at run time). */
const CHECK_SECONDS = 60;

export interface HourTotals {
  userId: number;
  username: string;
  modelName: string;
  /** Unix seconds, truncated to the hour. */
  createdAt: number;
  tokenUsed: number;
  count: number;
  quota: number;
}

/**
 * Consume logs summed per (user, model, hour) in memory, the way new-api fills quota_data for
 * its dashboard. `take` hands the sums over to one write and `restore` adds them back if it fails,
 * so a sum is either in one committed transaction or still here, never in both.
 */
export class QuotaDataAccumulator {
  private totals = new Map<string, HourTotals>();

  add(row: LogInsert): void {
    if (row.type !== LogType.Consume) return;
    const createdAt = row.created_at - (row.created_at % HOUR_SECONDS);
    const key = `${row.user_id}\u0000${createdAt}\u0000${row.model_name}`;
    let entry = this.totals.get(key);
    if (!entry) {
      entry = { userId: row.user_id, username: row.username, modelName: row.model_name, createdAt, tokenUsed: 0, count: 0, quota: 0 };
      this.totals.set(key, entry);
    }
    entry.tokenUsed += row.prompt_tokens + row.completion_tokens;
    entry.count += 1;
    entry.quota += row.quota;
  }

  take(): HourTotals[] {
    const entries = [...this.totals.values()];
    this.totals = new Map();
    return entries;
  }

  restore(entries: readonly HourTotals[]): void {
    for (const entry of entries) {
      const key = `${entry.userId}\u0000${entry.createdAt}\u0000${entry.modelName}`;
      const current = this.totals.get(key);
      if (!current) this.totals.set(key, { ...entry });
      else {
        current.tokenUsed += entry.tokenUsed;
        current.count += entry.count;
        current.quota += entry.quota;
      }
    }
  }

  get size(): number {
    return this.totals.size;
  }

  /** The sums not yet handed to a write (copies), for the dashboard's current period. */
  snapshot(): HourTotals[] {
    return [...this.totals.values()].map((entry) => ({ ...entry }));
  }
}

/**
 * Adds the sums to quota_data, and their totals per model and hour to quota_data_models (the
 * administrator's chart, migration 019), in one transaction of upserts on their keys (quota_data:
 * user_id, model_name, created_at, migration 005): concurrent writers (another node, a restart) add
 * up instead of overwriting, and the whole batch commits or none of it does. The same transaction
 * gives each UTC day it writes to a new revision (quota_data_days, migration 021).
 */
export async function writeQuotaData(db: Db, entries: readonly HourTotals[]): Promise<void> {
  if (entries.length === 0) return;
  const mysql = db.dialect === 'mysql';
  const perModel = new Map<string, { model_name: string; created_at: number; token_used: number; count: number; quota: number }>();
  for (const entry of entries) {
    const key = `${entry.modelName}\u0000${entry.createdAt}`;
    const known = perModel.get(key);
    if (known) {
      known.token_used += entry.tokenUsed;
      known.count += entry.count;
      known.quota += entry.quota;
    } else perModel.set(key, { model_name: entry.modelName, created_at: entry.createdAt, token_used: entry.tokenUsed, count: entry.count, quota: entry.quota });
  }
  // Rows locked in one order on every node (key order), so two nodes' exports wait for each other instead of deadlocking.
  const sorted = [...entries].sort((a, b) => a.createdAt - b.createdAt || a.userId - b.userId || compareText(a.modelName, b.modelName));
  const models = [...perModel.values()].sort((a, b) => a.created_at - b.created_at || compareText(a.model_name, b.model_name));
  const days = [...new Set(models.map((totals) => totals.created_at - (totals.created_at % DAY_SECONDS)))];
  await db.kysely.transaction().execute(async (trx) => {
    for (const entry of sorted) {
      const insert = trx.insertInto('quota_data').values({
        user_id: entry.userId,
        username: entry.username,
        model_name: entry.modelName,
        created_at: entry.createdAt,
        token_used: entry.tokenUsed,
        count: entry.count,
        quota: entry.quota,
      });
      if (mysql) {
        await insert
          .onDuplicateKeyUpdate({
            token_used: sql`token_used + values(token_used)`,
            count: sql`count + values(count)`,
            quota: sql`quota + values(quota)`,
          })
          .execute();
      } else {
        await insert
          .onConflict((conflict) =>
            conflict.columns(['user_id', 'model_name', 'created_at']).doUpdateSet({
              token_used: sql`quota_data.token_used + excluded.token_used`,
              count: sql`quota_data.count + excluded.count`,
              quota: sql`quota_data.quota + excluded.quota`,
            }),
          )
          .execute();
      }
    }
    for (const totals of models) {
      const insert = trx.insertInto('quota_data_models').values(totals);
      if (mysql) {
        await insert
          .onDuplicateKeyUpdate({ token_used: sql`token_used + values(token_used)`, count: sql`count + values(count)`, quota: sql`quota + values(quota)` })
          .execute();
      } else {
        await insert
          .onConflict((conflict) =>
            conflict.columns(['created_at', 'model_name']).doUpdateSet({
              token_used: sql`quota_data_models.token_used + excluded.token_used`,
              count: sql`quota_data_models.count + excluded.count`,
              quota: sql`quota_data_models.quota + excluded.quota`,
            }),
          )
          .execute();
      }
    }
    // Last, being every export's hot row: each day written gets a new revision (the dashboard's kept days, usage-chart.ts).
    for (const day of days) {
      const insert = trx.insertInto('quota_data_days').values({ day, revision: 1 });
      if (mysql) await insert.onDuplicateKeyUpdate({ revision: sql`revision + 1` }).execute();
      else await insert.onConflict((conflict) => conflict.column('day').doUpdateSet({ revision: sql`quota_data_days.revision + 1` })).execute();
    }
  });
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface QuotaDataExport {
  accumulator: QuotaDataAccumulator;
  /** Writes what has been summed so far (tests, shutdown). */
  flush(): Promise<void>;
  /**
   * This node's sums not yet in quota_data: still summing, or in a write not yet committed. The
   * dashboard adds them to the stored rows, so a call shows there at once instead of after the
   * next export.
   */
  unexported(): HourTotals[];
}

/**
 * Feeds every consume log queued in `logs` into the accumulator while DataExportEnabled is on and
 * writes it every DataExportInterval minutes and at a clean shutdown. Every node sums and writes
 * its own calls (the writes add up: writeQuotaData), so the dashboard counts the calls of every
 * node; until its export a node's sums are read from its memory (`unexported`).
 *
 * A crash loses the sums since the last export (at most DataExportInterval minutes of dashboard
 * data; the consume logs stay the record of what was charged). It cannot count twice: sums leave
 * memory only for a transaction that commits or gives them back.
 */
export function startQuotaDataExport(context: AppContext, logs: LogBuffer): QuotaDataExport {
  const { options, db } = context;
  const accumulator = new QuotaDataAccumulator();
  logs.onPush((row) => {
    if (options.bool('DataExportEnabled')) accumulator.add(row);
  });

  let running: Promise<void> | undefined;
  // The sums of the write under way, counted by the dashboard until it commits.
  let writing: readonly HourTotals[] = [];
  const flush = async (): Promise<void> => {
    // One write at a time: a second would add sums the first may still give back.
    while (running) await running.catch(() => undefined);
    const entries = accumulator.take();
    if (entries.length === 0) return;
    writing = entries;
    running = writeQuotaData(db, entries).catch((error: unknown) => {
      accumulator.restore(entries);
      throw error;
    });
    try {
      await running;
    } finally {
      running = undefined;
      writing = [];
    }
  };
  const unexported = (): HourTotals[] => [...accumulator.snapshot(), ...writing.map((entry) => ({ ...entry }))];

  let lastExport = Date.now();
  context.schedule(
    CHECK_SECONDS,
    async () => {
      const intervalMs = Math.max(1, options.number('DataExportInterval')) * 60_000;
      if (Date.now() - lastExport < intervalMs) return;
      lastExport = Date.now();
      await flush();
    },
    'usage data export',
  );
  context.onClose(async () => {
    try {
      await flush();
    } catch (error) {
      context.logger.error({ err: error }, 'final usage data export failed: the dashboard misses the calls since the last export');
    }
  });
  return { accumulator, flush, unexported };
}

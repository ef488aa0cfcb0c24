import type { AuditAction, AuditDetails, AuditTargetType } from '@modelgate/contract';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import type { AuditLogsTable } from '../../db/schema.js';
import { isSecretName, maskAuditValue, MASKED } from './audit-mask.js';

/** Who did it: a signed-in user, or (a failed sign-in) only the name that was tried. */
export interface AuditActor {
  id: number;
  username: string;
  role: number;
}

export interface AuditRecord {
  actor: AuditActor;
  ip: string;
  action: AuditAction;
  target?: { type: AuditTargetType; id: string | number };
  /** One line in Chinese, as the management logs read; the console renders its own from action and details. */
  summary: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  params?: Record<string, unknown>;
  /** Names of further fields to mask (option keys the registry flags secret). */
  secretFields?: readonly string[];
}

type AuditInsert = Insertable<AuditLogsTable>;

/** Rows that make a flush start before the timer (a batch import, a script). */
const BACKLOG_ROWS = 200;
/** How long a row may wait: admin actions are rare, and the console reads its own writes (flush before a read). */
const FLUSH_DELAY_MS = 500;
/** After a failed write: the rows wait this long for the next try, not every half second. */
const RETRY_DELAY_MS = 5000;
const SUMMARY_MAX = 1024;

/**
 * Only the fields that differ between before and after, each side keeping its own: an update
 * reads as what changed. Either side alone (a creation, a deletion) is kept whole.
 */
export function changedFields(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
): { before?: Record<string, unknown>; after?: Record<string, unknown> } {
  if (!before || !after) return { before, after };
  const changedBefore: Record<string, unknown> = {};
  const changedAfter: Record<string, unknown> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[name]) === JSON.stringify(after[name])) continue;
    if (name in before) changedBefore[name] = before[name];
    if (name in after) changedAfter[name] = after[name];
  }
  return { before: changedBefore, after: changedAfter };
}

/**
 * The audit log's writer. Rows are queued and written in one INSERT shortly after, off the
 * request's way, and at shutdown (the composition root registers flush() as a closer); a reader
 * flushes first, so a change shows in the list at once on this node.
 */
export class AuditLog {
  private queue: AuditInsert[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  record(entry: AuditRecord): void {
    const extra = new Set(entry.secretFields ?? []);
    const isSecret = (name: string) => extra.has(name) || isSecretName(name);
    const { before, after } = changedFields(entry.before, entry.after);
    const details: AuditDetails = {};
    if (before) details.before = maskAuditValue(before, isSecret) as Record<string, unknown>;
    if (after) details.after = maskAuditValue(after, isSecret) as Record<string, unknown>;
    if (entry.params) details.params = maskAuditValue(entry.params, isSecret) as Record<string, unknown>;
    this.queue.push({
      created_at: Math.floor(Date.now() / 1000),
      actor_id: entry.actor.id,
      actor_username: entry.actor.username.slice(0, 191),
      actor_role: entry.actor.role,
      ip: entry.ip.slice(0, 64),
      action: entry.action,
      target_type: entry.target?.type ?? '',
      target_id: String(entry.target?.id ?? '').slice(0, 191),
      summary: entry.summary.slice(0, SUMMARY_MAX),
      details: JSON.stringify(details),
    });
    if (this.queue.length >= BACKLOG_ROWS) {
      void this.flush();
      return;
    }
    this.schedule(FLUSH_DELAY_MS);
  }

  private schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), delayMs);
    this.timer.unref();
  }

  /** Writes what is queued; a failed write keeps the rows for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeQueued());
    return this.flushing;
  }

  private async writeQueued(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.queue;
    if (rows.length === 0) return;
    this.queue = [];
    try {
      await this.db.kysely.insertInto('audit_logs').values(rows).execute();
    } catch (error) {
      this.queue = rows.concat(this.queue);
      this.logger.error({ err: error, rows: rows.length }, 'audit log write failed; kept for the next flush');
      this.schedule(RETRY_DELAY_MS);
    }
  }

  /** Deletes rows older than `days` (the AuditLogRetentionDays option; 0 keeps them all). Answers how many. */
  async purge(days: number, now = Math.floor(Date.now() / 1000)): Promise<number> {
    if (!(days > 0)) return 0;
    const result = await this.db.kysely
      .deleteFrom('audit_logs')
      .where('created_at', '<', now - days * 86_400)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

export { MASKED };

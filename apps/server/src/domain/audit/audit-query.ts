import { Role, type AuditDetails, type AuditEntry } from '@modelgate/contract';
import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { AuditLogsTable, Database } from '../../db/schema.js';
import type { Paging } from '../../lib/paging.js';

export interface AuditFilter {
  action: string;
  /** The actor's username, exactly: an account's rows under its former names too. */
  actor: string;
  targetType: string;
  targetId: string;
  ip: string;
  /** Unix seconds, inclusive; 0 for no bound. */
  startTimestamp: number;
  endTimestamp: number;
  /** Administrators read the rows of actors below root; root reads every row. */
  readerRole: number;
}

type AuditRow = Selectable<AuditLogsTable>;

function conditions(eb: ExpressionBuilder<Database, 'audit_logs'>, filter: AuditFilter, actorId: number | undefined) {
  const parts = [];
  if (filter.readerRole < Role.Root) parts.push(eb('actor_role', '<', Role.Root));
  if (filter.action) parts.push(eb('action', '=', filter.action));
  // An account's id follows it through renames (and is indexed); a name no account holds matches as written.
  if (actorId !== undefined) parts.push(eb('actor_id', '=', actorId));
  else if (filter.actor) parts.push(eb('actor_username', '=', filter.actor));
  if (filter.targetType) parts.push(eb('target_type', '=', filter.targetType));
  if (filter.targetId) parts.push(eb('target_id', '=', filter.targetId));
  if (filter.ip) parts.push(eb('ip', '=', filter.ip));
  if (filter.startTimestamp > 0) parts.push(eb('created_at', '>=', filter.startTimestamp));
  if (filter.endTimestamp > 0) parts.push(eb('created_at', '<=', filter.endTimestamp));
  return eb.and(parts);
}

function parseDetails(text: string): AuditDetails {
  try {
    const parsed = JSON.parse(text) as AuditDetails;
    return parsed !== null && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

export const toAuditEntry = (row: AuditRow): AuditEntry => ({
  id: Number(row.id),
  created_at: Number(row.created_at),
  actor_id: Number(row.actor_id),
  actor_username: row.actor_username,
  actor_role: Number(row.actor_role),
  ip: row.ip,
  action: row.action,
  target_type: row.target_type,
  target_id: row.target_id,
  summary: row.summary,
  details: parseDetails(row.details),
});

/** Reads audit rows, newest first. There is no write here: nothing but the retention job removes a row. */
export class AuditQuery {
  constructor(private readonly db: Db) {}

  async page(filter: AuditFilter, paging: Paging): Promise<{ items: AuditEntry[]; total: number }> {
    const db = this.db.kysely;
    const account = filter.actor ? await db.selectFrom('users').select('id').where('username', '=', filter.actor).executeTakeFirst() : undefined;
    const actorId = account ? Number(account.id) : undefined;
    const counted = await db
      .selectFrom('audit_logs')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where((eb) => conditions(eb, filter, actorId))
      .executeTakeFirst();
    const total = Number(counted?.total ?? 0);
    if (total === 0 || paging.offset >= total) return { items: [], total };
    const rows = await db
      .selectFrom('audit_logs')
      .selectAll()
      .where((eb) => conditions(eb, filter, actorId))
      .orderBy('id', 'desc')
      .limit(paging.pageSize)
      .offset(paging.offset)
      .execute();
    return { items: rows.map(toAuditEntry), total };
  }
}

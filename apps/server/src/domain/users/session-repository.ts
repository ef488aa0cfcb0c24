import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { insertReturningId } from '../../db/index.js';
import type { SessionsTable } from '../../db/schema.js';

export type SessionRow = Selectable<SessionsTable>;

export interface NewSession {
  tokenHash: string;
  userId: number;
  ip: string;
  userAgent: string;
  now: number;
  expiresAt: number;
}

/**
 * Signed-in browsers, in the database so every node sees a logout or a revocation at once.
 * Times are Unix seconds.
 */
export class SessionRepository {
  constructor(private readonly db: Db) {}

  create(session: NewSession): Promise<number> {
    return insertReturningId(this.db, 'sessions', {
      token_hash: session.tokenHash,
      user_id: session.userId,
      created_at: session.now,
      last_seen_at: session.now,
      expires_at: session.expiresAt,
      ip: session.ip,
      user_agent: session.userAgent,
    });
  }

  findLive(tokenHash: string, now: number): Promise<SessionRow | undefined> {
    return this.db.kysely.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
  }

  async touch(id: number, now: number, ip: string): Promise<void> {
    await this.db.kysely.updateTable('sessions').set({ last_seen_at: now, ip }).where('id', '=', id).execute();
  }

  /** Notes that the session's user proved themselves again now (fresh-verification.ts). */
  async markVerified(id: number, method: string, now: number): Promise<void> {
    await this.db.kysely.updateTable('sessions').set({ verified_at: now, verified_method: method }).where('id', '=', id).execute();
  }

  /** The user's unexpired sessions, most recently used first. */
  listLive(userId: number, now: number): Promise<SessionRow[]> {
    return this.db.kysely
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .orderBy('last_seen_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /** Ends one session of this user; false when it is not theirs or no longer exists. */
  async revoke(userId: number, id: number): Promise<boolean> {
    const result = await this.db.kysely.deleteFrom('sessions').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async revokeByHash(tokenHash: string): Promise<void> {
    await this.db.kysely.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  }

  async revokeAllOf(userId: number): Promise<void> {
    await this.db.kysely.deleteFrom('sessions').where('user_id', '=', userId).execute();
  }

  async purgeExpired(now: number): Promise<void> {
    await this.db.kysely.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  }
}

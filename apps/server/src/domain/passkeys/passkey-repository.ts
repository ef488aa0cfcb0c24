import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { insertReturningId } from '../../db/index.js';
import type { PasskeyChallengesTable, PasskeyCredentialsTable } from '../../db/schema.js';

export type PasskeyRow = Selectable<PasskeyCredentialsTable>;
export type NewPasskey = Omit<Insertable<PasskeyCredentialsTable>, 'id'>;
export type ChallengeKind = 'register' | 'login' | 'verify';

/** Whose ceremony a challenge is: a sign-in's belongs to no one yet (0, 0). */
export interface ChallengeOwner {
  userId: number;
  sessionId: number;
}

/** Passkey credentials and pending ceremony challenges (migration 015). Times are Unix seconds. */
export class PasskeyRepository {
  constructor(private readonly db: Db) {}

  listOf(userId: number): Promise<PasskeyRow[]> {
    return this.db.kysely
      .selectFrom('passkey_credentials')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async countOf(userId: number): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('passkey_credentials')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  findByCredentialId(credentialId: string): Promise<PasskeyRow | undefined> {
    return this.db.kysely.selectFrom('passkey_credentials').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
  }

  insert(passkey: NewPasskey): Promise<number> {
    return insertReturningId(this.db, 'passkey_credentials', passkey);
  }

  /**
   * Records a use: the new signature counter, only if the stored one is still the one checked
   * against (two sign-ins racing with one counter value: the second loses). False when it lost.
   */
  async recordUse(id: number, checkedCounter: number, newCounter: number, backupState: boolean, now: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('passkey_credentials')
      .set({ sign_count: newCounter, backup_state: backupState ? 1 : 0, last_used_at: now })
      .where('id', '=', id)
      .where('sign_count', '=', checkedCounter)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Removes one of the user's passkeys, or all of them without an id; answers how many went. */
  async remove(userId: number, id?: number): Promise<number> {
    let query = this.db.kysely.deleteFrom('passkey_credentials').where('user_id', '=', userId);
    if (id !== undefined) query = query.where('id', '=', id);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async saveChallenge(challenge: Selectable<PasskeyChallengesTable>, now: number): Promise<void> {
    // Abandoned ceremonies go as new ones begin; the index on expires_at keeps this cheap.
    await this.db.kysely.deleteFrom('passkey_challenges').where('expires_at', '<=', now).execute();
    await this.db.kysely.insertInto('passkey_challenges').values(challenge).execute();
  }

  /**
   * Takes a pending challenge of this kind and owner, once: the row is deleted by the call that
   * finds it, so a second finish with the same challenge (on any node) finds nothing.
   */
  async takeChallenge(challenge: string, kind: ChallengeKind, owner: ChallengeOwner, now: number): Promise<{ name: string } | undefined> {
    const row = await this.db.kysely
      .selectFrom('passkey_challenges')
      .select(['name'])
      .where('challenge', '=', challenge)
      .where('kind', '=', kind)
      .where('user_id', '=', owner.userId)
      .where('session_id', '=', owner.sessionId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    const deleted = await this.db.kysely.deleteFrom('passkey_challenges').where('challenge', '=', challenge).executeTakeFirst();
    return Number(deleted.numDeletedRows) === 1 ? row : undefined;
  }
}

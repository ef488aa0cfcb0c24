import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { TwoFasTable } from '../../db/schema.js';

export type TwoFactorRow = Selectable<TwoFasTable>;

/**
 * The rows of TOTP two-factor sign-in (migration 014). Every change that must happen once (a
 * time step accepted, a backup code spent, a pending sign-in completed) is one conditional
 * statement, so two nodes or two concurrent calls cannot both win it. Times are Unix seconds.
 */
export class TwoFactorRepository {
  constructor(private readonly db: Db) {}

  /** The user's TOTP row, its secret opened (it is stored sealed: db/secret-key.ts). */
  async find(userId: number): Promise<TwoFactorRow | undefined> {
    const row = await this.db.kysely.selectFrom('two_fas').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return row && { ...row, secret: this.db.secrets.open(row.secret) };
  }

  async isEnabled(userId: number): Promise<boolean> {
    const row = await this.db.kysely.selectFrom('two_fas').select('id').where('user_id', '=', userId).where('is_enabled', '=', 1).executeTakeFirst();
    return row !== undefined;
  }

  /** Replaces a pending (not yet enabled) setup with a new secret and backup codes; false when 2FA is already on. */
  async replacePending(userId: number, secret: string, codeHashes: string[], now: number): Promise<boolean> {
    return this.db.kysely.transaction().execute(async (trx) => {
      const existing = await trx.selectFrom('two_fas').select('is_enabled').where('user_id', '=', userId).executeTakeFirst();
      if (existing && Number(existing.is_enabled) === 1) return false;
      await trx.deleteFrom('two_fas').where('user_id', '=', userId).execute();
      await trx.deleteFrom('two_fa_backup_codes').where('user_id', '=', userId).execute();
      await trx
        .insertInto('two_fas')
        .values({ user_id: userId, secret: this.db.secrets.seal(secret), is_enabled: 0, created_at: now, updated_at: now })
        .execute();
      if (codeHashes.length > 0) {
        await trx
          .insertInto('two_fa_backup_codes')
          .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now })))
          .execute();
      }
      return true;
    });
  }

  /** Turns a pending setup on, its first code's time step noted; false when there is none pending. */
  async enable(userId: number, timeStep: number, now: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('two_fas')
      .set({ is_enabled: 1, last_time_step: timeStep, last_used_at: now, updated_at: now })
      .where('user_id', '=', userId)
      .where('is_enabled', '=', 0)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Accepts a code's time step once: false when a code of this or a later step was accepted already. */
  async acceptTimeStep(userId: number, timeStep: number, now: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('two_fas')
      .set({ last_time_step: timeStep, last_used_at: now, updated_at: now })
      .where('user_id', '=', userId)
      .where('is_enabled', '=', 1)
      .where('last_time_step', '<', timeStep)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Spends an unused backup code of the user; false when none matches (or it was spent meanwhile). */
  async spendBackupCode(userId: number, codeHash: string, now: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('two_fa_backup_codes')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('used_at', '=', 0)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await this.db.kysely.updateTable('two_fas').set({ last_used_at: now, updated_at: now }).where('user_id', '=', userId).execute();
    return true;
  }

  async unusedBackupCodes(userId: number): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('two_fa_backup_codes')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('user_id', '=', userId)
      .where('used_at', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async replaceBackupCodes(userId: number, codeHashes: string[], now: number): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      await trx.deleteFrom('two_fa_backup_codes').where('user_id', '=', userId).execute();
      await trx
        .insertInto('two_fa_backup_codes')
        .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now })))
        .execute();
    });
  }

  /** Removes the user's 2FA (enabled or pending), its backup codes and sign-ins waiting for a code; false when there was none enabled. */
  async remove(userId: number): Promise<boolean> {
    return this.db.kysely.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('two_fas').where('user_id', '=', userId).where('is_enabled', '=', 1).executeTakeFirst();
      await trx.deleteFrom('two_fas').where('user_id', '=', userId).execute();
      await trx.deleteFrom('two_fa_backup_codes').where('user_id', '=', userId).execute();
      await trx.deleteFrom('two_fa_logins').where('user_id', '=', userId).execute();
      return Number(removed.numDeletedRows) > 0;
    });
  }

  /** Ids among `userIds` that have 2FA on. */
  async enabledAmong(userIds: number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.db.kysely.selectFrom('two_fas').select('user_id').where('user_id', 'in', userIds).where('is_enabled', '=', 1).execute();
    return new Set(rows.map((row) => Number(row.user_id)));
  }

  async countEnabled(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('two_fas')
      .innerJoin('users', 'users.id', 'two_fas.user_id')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('two_fas.is_enabled', '=', 1)
      .where('users.deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async countLiveUsers(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async createLogin(tokenHash: string, userId: number, now: number, expiresAt: number): Promise<void> {
    await this.db.kysely.deleteFrom('two_fa_logins').where('expires_at', '<=', now).execute();
    await this.db.kysely.insertInto('two_fa_logins').values({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt }).execute();
  }

  /** The user a live pending sign-in belongs to, or undefined. */
  async findLogin(tokenHash: string, now: number): Promise<number | undefined> {
    const row = await this.db.kysely
      .selectFrom('two_fa_logins')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row ? Number(row.user_id) : undefined;
  }

  /** Completes a pending sign-in: true for exactly one caller while it is live. */
  async consumeLogin(tokenHash: string, now: number): Promise<boolean> {
    const result = await this.db.kysely.deleteFrom('two_fa_logins').where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

import { sql } from 'kysely';
import { SECRET_OPTION_KEYS } from '../../config/option-registry.js';
import type { Db } from '../../db/index.js';
import { writeKeyCheck } from '../../db/secret-key.js';
import { openStoredUserSetting, sealStoredUserSetting } from '../../domain/users/user-setting.js';
import { isSealed, type SecretBox } from '../../lib/secret-box.js';

/** How many stored values a run sealed (or re-sealed), per kind. */
export interface ResealCounts {
  channelKeys: number;
  options: number;
  userSettings: number;
  twoFactorSecrets: number;
}

export interface ResealOptions {
  /** Opens what is sealed now. */
  from: SecretBox;
  /** Seals what is written. */
  to: SecretBox;
  /**
   * encrypt: only plaintext values are sealed, sealed ones are left as they are (a second run
   * changes nothing); rotate: every value is opened with `from` and sealed again with `to`.
   */
  mode: 'encrypt' | 'rotate';
}

const PAGE = 500;

/**
 * Seals every secret the database stores (channel keys, secret options, the secrets in users'
 * settings) in one transaction, with the check row of the key `to`: a crash leaves the database
 * wholly under the old key or wholly under the new one.
 */
export async function resealSecrets(db: Db, { from, to, mode }: ResealOptions): Promise<ResealCounts> {
  const counts: ResealCounts = { channelKeys: 0, options: 0, userSettings: 0, twoFactorSecrets: 0 };
  const reseal = (stored: string): string | undefined => {
    if (stored === '' || (mode === 'encrypt' && isSealed(stored))) return undefined;
    return to.seal(from.open(stored));
  };
  await db.kysely.transaction().execute(async (trx) => {
    for (let afterId = 0; ; ) {
      const rows = await trx.selectFrom('channels').select(['id', 'key']).where('id', '>', afterId).orderBy('id').limit(PAGE).execute();
      if (rows.length === 0) break;
      afterId = Number(rows[rows.length - 1]!.id);
      for (const row of rows) {
        const key = reseal(row.key);
        if (key === undefined) continue;
        await trx.updateTable('channels').set({ key }).where('id', '=', row.id).execute();
        counts.channelKeys += 1;
      }
    }
    const options = await trx.selectFrom('options').select(['key', 'value']).where('key', 'in', SECRET_OPTION_KEYS).execute();
    for (const row of options) {
      const value = reseal(row.value ?? '');
      if (value === undefined) continue;
      await trx.updateTable('options').set({ value }).where('key', '=', row.key).execute();
      counts.options += 1;
    }
    for (let afterId = 0; ; ) {
      const rows = await trx
        .selectFrom('users')
        .select(['id', 'setting'])
        .where('id', '>', afterId)
        .where((eb) => eb.or([eb('setting', 'like', '%"webhook_secret"%'), eb('setting', 'like', '%"gotify_token"%')]))
        .orderBy('id')
        .limit(PAGE)
        .execute();
      if (rows.length === 0) break;
      afterId = Number(rows[rows.length - 1]!.id);
      for (const row of rows) {
        const plain = mode === 'rotate' ? openStoredUserSetting(row.setting, from) : row.setting;
        const setting = sealStoredUserSetting(plain, to);
        if (setting === row.setting) continue;
        await trx.updateTable('users').set({ setting }).where('id', '=', row.id).execute();
        counts.userSettings += 1;
      }
    }
    const totps = await trx.selectFrom('two_fas').select(['id', 'secret']).execute();
    for (const row of totps) {
      const secret = reseal(row.secret);
      if (secret === undefined) continue;
      await trx.updateTable('two_fas').set({ secret }).where('id', '=', row.id).execute();
      counts.twoFactorSecrets += 1;
    }
    if (mode === 'rotate') await writeKeyCheck(db, to, trx);
  });
  await forgetOldPages(db);
  return counts;
}

/**
 * SQLite keeps the pages a write replaced (the plaintext, or values under the old key) in its free
 * list and its WAL file until they are reused: rewrite the file and empty the WAL.
 */
async function forgetOldPages(db: Db): Promise<void> {
  if (db.dialect !== 'sqlite') return;
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db.kysely);
  await sql`VACUUM`.execute(db.kysely);
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db.kysely);
}

export const formatCounts = (counts: ResealCounts): string =>
  `channel keys: ${counts.channelKeys}\nsecret options: ${counts.options}\nuser settings (webhook secret, gotify token): ${counts.userSettings}\ntwo-factor secrets: ${counts.twoFactorSecrets}\n`;

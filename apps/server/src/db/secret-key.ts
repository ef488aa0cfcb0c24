import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { formatSecretKey, generateSecretKey, parseSecretKey, SecretBox, SecretBoxError } from '../lib/secret-box.js';
import type { Db } from './db-types.js';

/** A database and its secret key do not go together; the message says what to set or restore. */
export class SecretKeyError extends Error {}

/**
 * The options row holding a sealed known value: opening it at start tells a wrong key at once,
 * instead of a failure on the first relayed call. Not an option: the registry does not know it,
 * so GET /api/option/ never lists it and PUT /api/option/ refuses it.
 */
export const SECRET_KEY_CHECK = 'SecretKeyCheck';
const CHECK_PLAINTEXT = 'modelgate secret key check';

export const keyFilePath = (sqlitePath: string): string => `${sqlitePath}.key`;
const inMemory = (sqlitePath: string) => sqlitePath === '' || sqlitePath === ':memory:';

export interface SecretKeySource {
  /** MODELGATE_SECRET_KEY, when set. */
  secretKey?: Buffer | undefined;
  sqlitePath: string;
  /** Told where a new key file was written (the operator must back it up). */
  onKeyFileCreated?: ((path: string) => void) | undefined;
}

/** Refuses PostgreSQL and MySQL without MODELGATE_SECRET_KEY: nodes sharing a database must share its key. */
export function requireSharedKey(dialect: Db['dialect'], secretKey: Buffer | undefined): void {
  if (dialect !== 'sqlite' && secretKey === undefined) {
    throw new SecretKeyError(
      `MODELGATE_SECRET_KEY must be set with ${dialect === 'postgres' ? 'PostgreSQL' : 'MySQL'}: every node of the database seals and opens its secrets with it (make one with \`openssl rand -base64 32\` and keep it with the database backups)`,
    );
  }
}

export async function readKeyCheck(db: Pick<Db, 'kysely'>): Promise<string | undefined> {
  const row = await db.kysely.selectFrom('options').select('value').where('key', '=', SECRET_KEY_CHECK).executeTakeFirst();
  return row?.value ?? undefined;
}

/** Writes (or overwrites, when the key is rotated) the check row sealed with `box`. */
export async function writeKeyCheck(db: Pick<Db, 'kysely' | 'dialect'>, box: SecretBox, executor = db.kysely): Promise<void> {
  const value = box.seal(CHECK_PLAINTEXT);
  const insert = executor.insertInto('options').values({ key: SECRET_KEY_CHECK, value });
  await (db.dialect === 'mysql'
    ? insert.onDuplicateKeyUpdate({ value })
    : insert.onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
  ).execute();
}

async function insertKeyCheckIfAbsent(db: Pick<Db, 'kysely' | 'dialect'>, box: SecretBox): Promise<void> {
  const insert = db.kysely.insertInto('options').values({ key: SECRET_KEY_CHECK, value: box.seal(CHECK_PLAINTEXT) });
  await (db.dialect === 'mysql' ? insert.ignore() : insert.onConflict((conflict) => conflict.column('key').doNothing())).execute();
}

/** true when `box` opens the sealed check value. */
export function opensCheck(box: SecretBox, check: string): boolean {
  try {
    return box.open(check) === CHECK_PLAINTEXT;
  } catch (error) {
    if (error instanceof SecretBoxError) return false;
    throw error;
  }
}

/**
 * The key for this database: MODELGATE_SECRET_KEY when set; else, for a SQLite file, the key in
 * `<file>.key` beside it, made (mode 0600) on the first start; an in-memory database gets a key
 * for this process. A database whose check row the key does not open is refused with a message
 * naming the variable, and so is a SQLite file holding sealed values whose key file is gone.
 */
export async function unlockSecrets(db: Pick<Db, 'kysely' | 'dialect'>, source: SecretKeySource): Promise<SecretBox> {
  requireSharedKey(db.dialect, source.secretKey);
  // A node that does not migrate may meet a database not created yet: nothing is sealed in it.
  const tables = await db.kysely.introspection.getTables();
  const migrated = tables.some((table) => table.name === 'options');
  let check = migrated ? await readKeyCheck(db) : undefined;
  const key = source.secretKey ?? loadOrCreateKeyFile(source, check !== undefined);
  const box = new SecretBox(key);
  if (!migrated) return box;
  if (check === undefined) {
    // Never over another's: two nodes starting at once on a new database with different keys
    // must not both succeed.
    await insertKeyCheckIfAbsent(db, box);
    check = (await readKeyCheck(db)) ?? '';
  }
  if (!opensCheck(box, check)) {
    const where = source.secretKey ? 'MODELGATE_SECRET_KEY' : `the key file ${keyFilePath(source.sqlitePath)}`;
    throw new SecretKeyError(
      `${where} does not open this database's encrypted secrets: set MODELGATE_SECRET_KEY to the key the database was encrypted with (or restore its key file)`,
    );
  }
  return box;
}

function loadOrCreateKeyFile(source: SecretKeySource, databaseHasSecrets: boolean): Buffer {
  const { sqlitePath } = source;
  if (inMemory(sqlitePath)) return generateSecretKey();
  const path = keyFilePath(sqlitePath);
  if (existsSync(path)) {
    const key = parseSecretKey(readFileSync(path, 'utf8'));
    if (!key) throw new SecretKeyError(`the key file ${path} does not hold a 32-byte key (base64 or hex)`);
    return key;
  }
  if (databaseHasSecrets) {
    throw new SecretKeyError(
      `the database ${sqlitePath} holds encrypted secrets but its key file ${path} is missing: restore the file or set MODELGATE_SECRET_KEY to the key`,
    );
  }
  const key = generateSecretKey();
  // 'wx': two processes starting on one new file must not each write their own key.
  try {
    writeFileSync(path, `${formatSecretKey(key)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return loadOrCreateKeyFile(source, databaseHasSecrets);
  }
  source.onKeyFileCreated?.(path);
  return key;
}

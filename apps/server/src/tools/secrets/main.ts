import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { ConfigError, loadConfig } from '../../config/env.js';
import { connectDb } from '../../db/index.js';
import { keyFilePath, SecretKeyError } from '../../db/secret-key.js';
import { formatSecretKey, generateSecretKey, parseSecretKey, SecretBox } from '../../lib/secret-box.js';
import { formatCounts, resealSecrets } from './reseal.js';

/**
 * `npm run secrets:encrypt`: seals every secret still stored in plain text (a database from before
 * encryption at rest, or one filled by hand), with the key the server would use; idempotent.
 * `npm run secrets:rotate`: re-seals everything under a new key (MODELGATE_NEW_SECRET_KEY, else a
 * generated one) in one transaction; a SQLite key file is replaced, else the new key is printed to
 * set as MODELGATE_SECRET_KEY. Stop every node first: a running one still holds the old key.
 * Exit 0 on success, 2 for bad input or a key that does not open the database.
 */
const USAGE = 'usage: npm run secrets:encrypt | npm run secrets:rotate';

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  let config;
  try {
    if (argv.length !== 1 || (command !== 'encrypt' && command !== 'rotate')) throw new UsageError(USAGE);
    config = loadConfig();
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`modelgate secrets: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  let newKey: Buffer | undefined;
  if (command === 'rotate') {
    const given = process.env.MODELGATE_NEW_SECRET_KEY?.trim();
    newKey = given ? parseSecretKey(given) : generateSecretKey();
    if (!newKey) {
      process.stderr.write('modelgate secrets: MODELGATE_NEW_SECRET_KEY must be 32 bytes written as base64 (44 characters) or hex (64 characters)\n');
      return 2;
    }
  }
  let db;
  try {
    db = await connectDb({ sqlitePath: config.sqlitePath, sqlDsn: config.sqlDsn, migrate: true, secretKey: config.secretKey });
  } catch (error) {
    if (error instanceof SecretKeyError) {
      process.stderr.write(`modelgate secrets: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  try {
    if (command === 'encrypt') {
      const counts = await resealSecrets(db, { from: db.secrets, to: db.secrets, mode: 'encrypt' });
      process.stdout.write(`sealed the values still in plain text:\n${formatCounts(counts)}`);
      return 0;
    }
    return await rotate(db, config, newKey!);
  } finally {
    await db.close();
  }
}

async function rotate(db: Awaited<ReturnType<typeof connectDb>>, config: ReturnType<typeof loadConfig>, newKey: Buffer): Promise<number> {
  const keyFile = config.secretKey === undefined && db.dialect === 'sqlite' ? keyFilePath(config.sqlitePath) : undefined;
  // The new key reaches the disk before the database depends on it.
  const pending = keyFile && `${keyFile}.new`;
  if (pending) writeFileSync(pending, `${formatSecretKey(newKey)}\n`, { mode: 0o600 });
  try {
    const counts = await resealSecrets(db, { from: db.secrets, to: new SecretBox(newKey), mode: 'rotate' });
    process.stdout.write(`re-sealed under the new key:\n${formatCounts(counts)}`);
  } catch (error) {
    if (pending) rmSync(pending, { force: true });
    throw error;
  }
  if (keyFile && pending) {
    renameSync(pending, keyFile);
    process.stdout.write(`the key file ${keyFile} now holds the new key: back it up with the database\n`);
  } else {
    process.stdout.write(
      `set MODELGATE_SECRET_KEY=${formatSecretKey(newKey)} on every node before starting them again (the old key no longer opens the database)\n`,
    );
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`modelgate secrets failed: ${String((error as Error).message ?? error)}\n`);
    process.exit(1);
  },
);

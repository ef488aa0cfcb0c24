import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDb, insertReturningId, type Db } from '../../db/index.js';
import { SECRET_KEY_CHECK } from '../../db/secret-key.js';
import { generateSecretKey, SecretBox } from '../../lib/secret-box.js';
import { createFreshDb } from '../../test-support/dialects.js';
import { startTestApp } from '../../test-support/test-app.js';
import { resealSecrets } from './reseal.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run secrets:<command>` as an operator runs it: the CLI through tsx, configured by the environment. */
const runSecrets = (command: string, env: Record<string, string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', MAIN, command], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });

const CHANNEL_KEY = 'sk-plain-CHANNEL-0123456789abcdef';
const SMTP_TOKEN = 'smtp-plain-PASSWORD-0123456789';
const EPAY_KEY = 'epay-plain-KEY-0123456789';
const WEBHOOK_SECRET = 'whsec-plain-WEBHOOK-0123456789';
const GOTIFY_TOKEN = 'gotify-plain-TOKEN-0123456789';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPTOTPPLAINSECRET7';
const PLAINTEXTS = [CHANNEL_KEY, SMTP_TOKEN, EPAY_KEY, WEBHOOK_SECRET, GOTIFY_TOKEN, TOTP_SECRET];

const fileBytes = (sqlitePath: string) => Buffer.concat([sqlitePath, `${sqlitePath}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path)));

describe('npm run secrets:encrypt and secrets:rotate on a SQLite database', () => {
  let dir = '';
  let sqlitePath = '';
  let keyFile = '';
  const env = (extra: Record<string, string> = {}) => ({ SQLITE_PATH: sqlitePath, MODELGATE_SECRET_KEY: '', ...extra });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'modelgate-secrets-tool-'));
    sqlitePath = join(dir, 'modelgate.db');
    keyFile = `${sqlitePath}.key`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('encrypts every plaintext secret in place, prints the counts, and a second run changes nothing', async () => {
    // A database as a version before encryption at rest left it: secrets in plain text, no key check, no key file.
    const db = await connectDb({ sqlitePath, sqlDsn: '', migrate: true });
    await db.kysely.deleteFrom('options').where('key', '=', SECRET_KEY_CHECK).execute();
    await seedPlaintextRows(db);
    await db.close();
    unlinkSync(keyFile);
    const before = fileBytes(sqlitePath);
    for (const plaintext of PLAINTEXTS) expect(before.includes(plaintext), `${plaintext} is there to be encrypted`).toBe(true);

    const first = await runSecrets('encrypt', env());
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('channel keys: 1');
    expect(first.stdout).toContain('secret options: 2');
    expect(first.stdout).toContain('user settings (webhook secret, gotify token): 1');
    expect(first.stdout).toContain('two-factor secrets: 1');
    expect(existsSync(keyFile)).toBe(true);
    const after = fileBytes(sqlitePath);
    expect(after.includes('plain-site-name')).toBe(true);
    for (const plaintext of PLAINTEXTS) expect(after.includes(plaintext), plaintext).toBe(false);

    const second = await runSecrets('encrypt', env());
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('channel keys: 0');
    expect(second.stdout).toContain('secret options: 0');
    expect(second.stdout).toContain('user settings (webhook secret, gotify token): 0');
    expect(second.stdout).toContain('two-factor secrets: 0');

    const test = await startTestApp(env());
    try {
      expect(test.context.options.raw('SMTPToken')).toBe(SMTP_TOKEN);
      expect(test.context.options.raw('EpayKey')).toBe(EPAY_KEY);
      const channel = await test.context.db.kysely.selectFrom('channels').select('key').where('name', '=', 'plain-channel').executeTakeFirstOrThrow();
      expect(test.context.db.secrets.open(channel.key)).toBe(CHANNEL_KEY);
      const setting = JSON.parse(
        (await test.context.db.kysely.selectFrom('users').select('setting').where('username', '=', 'hooked').executeTakeFirstOrThrow()).setting,
      );
      expect(test.context.db.secrets.open(setting.webhook_secret)).toBe(WEBHOOK_SECRET);
      expect(test.context.db.secrets.open(setting.gotify_token)).toBe(GOTIFY_TOKEN);
    } finally {
      await test.close();
    }
  });

  it('rotates to a new key: the key file is replaced, everything opens with the new key and not with the old', async () => {
    const oldKey = readFileSync(keyFile, 'utf8').trim();
    const rotated = await runSecrets('rotate', env());
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain('channel keys: 1');
    expect(rotated.stdout).toContain('secret options: 2');
    expect(rotated.stdout).toContain(`the key file ${keyFile} now holds the new key`);
    const newKey = readFileSync(keyFile, 'utf8').trim();
    expect(newKey).not.toBe(oldKey);
    expect(existsSync(`${keyFile}.new`)).toBe(false);

    await expect(startTestApp(env({ MODELGATE_SECRET_KEY: oldKey }))).rejects.toThrow(/does not open this database's encrypted secrets/);
    const test = await startTestApp(env());
    try {
      expect(test.context.options.raw('SMTPToken')).toBe(SMTP_TOKEN);
      const channel = await test.context.db.kysely.selectFrom('channels').select('key').where('name', '=', 'plain-channel').executeTakeFirstOrThrow();
      expect(test.context.db.secrets.open(channel.key)).toBe(CHANNEL_KEY);
      expect(() => new SecretBox(Buffer.from(oldKey, 'base64')).open(channel.key)).toThrow(/does not open with this key/);
    } finally {
      await test.close();
    }
  });

  it('rotates to MODELGATE_NEW_SECRET_KEY when the key comes from MODELGATE_SECRET_KEY, and prints what to set', async () => {
    const current = readFileSync(keyFile, 'utf8').trim();
    const next = generateSecretKey().toString('base64');
    const rotated = await runSecrets('rotate', env({ MODELGATE_SECRET_KEY: current, MODELGATE_NEW_SECRET_KEY: next }));
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain(`set MODELGATE_SECRET_KEY=${next} on every node`);
    // The key file was not the key in use: it is left alone, and no longer opens the database.
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(current);
    await expect(startTestApp(env())).rejects.toThrow(/the key file .* does not open this database's encrypted secrets/);
    const test = await startTestApp(env({ MODELGATE_SECRET_KEY: next }));
    try {
      expect(test.context.options.raw('EpayKey')).toBe(EPAY_KEY);
    } finally {
      await test.close();
    }
  });

  it('refuses a malformed new key or a wrong current key with exit code 2 and changes nothing', async () => {
    const bad = await runSecrets('rotate', env({ MODELGATE_NEW_SECRET_KEY: 'too-short' }));
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.stderr).toContain('MODELGATE_NEW_SECRET_KEY must be 32 bytes');
    const wrong = await runSecrets('encrypt', env({ MODELGATE_SECRET_KEY: generateSecretKey().toString('hex') }));
    expect(wrong).toMatchObject({ code: 2 });
    expect(wrong.stderr).toContain("MODELGATE_SECRET_KEY does not open this database's encrypted secrets");
    const usage = await runSecrets('shred', env());
    expect(usage).toMatchObject({ code: 2 });
    expect(usage.stderr).toContain('usage: npm run secrets:encrypt | npm run secrets:rotate');
  });
});

describe.each(['postgres', 'mysql'] as const)('re-sealing on %s', (dialect) => {
  it('encrypts plaintext rows, then rotates them in one go: the new key opens them, the old one does not', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      const { db } = fresh;
      await seedPlaintextRows(db);
      const encrypted = await resealSecrets(db, { from: db.secrets, to: db.secrets, mode: 'encrypt' });
      expect(encrypted).toEqual({ channelKeys: 1, options: 2, userSettings: 1, twoFactorSecrets: 1 });
      const next = new SecretBox(generateSecretKey());
      expect(await resealSecrets(db, { from: db.secrets, to: next, mode: 'rotate' })).toEqual({
        channelKeys: 1,
        options: 2,
        userSettings: 1,
        twoFactorSecrets: 1,
      });
      const channel = await db.kysely.selectFrom('channels').select('key').where('name', '=', 'plain-channel').executeTakeFirstOrThrow();
      expect(next.open(channel.key)).toBe(CHANNEL_KEY);
      expect(() => db.secrets.open(channel.key)).toThrow(/does not open with this key/);
      const smtp = await db.kysely.selectFrom('options').select('value').where('key', '=', 'SMTPToken').executeTakeFirstOrThrow();
      expect(next.open(smtp.value ?? '')).toBe(SMTP_TOKEN);
    } finally {
      await fresh.drop();
    }
  });
});

/** Secrets in plain text, as a version before encryption at rest (or an import by hand) stored them. */
async function seedPlaintextRows(db: Db): Promise<void> {
  const setting = { notify_type: 'webhook', webhook_url: 'https://hooks.example.com/q', webhook_secret: WEBHOOK_SECRET, gotify_token: GOTIFY_TOKEN };
  const hooked = await insertReturningId(db, 'users', {
    username: 'hooked',
    username_key: 'hooked',
    password: 'x',
    created_at: 1,
    setting: JSON.stringify(setting),
  });
  await db.kysely.insertInto('two_fas').values({ user_id: hooked, secret: TOTP_SECRET, is_enabled: 1, created_at: 1, updated_at: 1 }).execute();
  await insertReturningId(db, 'channels', { name: 'plain-channel', key: CHANNEL_KEY, created_time: 1, models: 'm', group: 'default' });
  await db.kysely
    .insertInto('options')
    .values([
      { key: 'SMTPToken', value: SMTP_TOKEN },
      { key: 'EpayKey', value: EPAY_KEY },
      { key: 'SystemName', value: 'plain-site-name' },
    ])
    .execute();
}

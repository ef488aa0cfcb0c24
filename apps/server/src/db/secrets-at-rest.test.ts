import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_OPTION_KEYS } from '../config/option-registry.js';
import { ConfigError } from '../config/env.js';
import { generateSecretKey, parseSecretKey } from '../lib/secret-box.js';
import { MockUpstream } from '../relay/testing/mock-upstream.js';
import { priceModel, seedToken, seedUser, unique } from '../relay/testing/relay-fixtures.js';
import { createFreshDb } from '../test-support/dialects.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';

const CHANNEL_KEY = 'sk-at-rest-CHANNEL-KEY-0123456789abcdef';
const SECOND_KEY = 'sk-at-rest-SECOND-KEY-0123456789abcdef';
const WEBHOOK_SECRET = 'whsec-at-rest-WEBHOOK-0123456789';
const optionSecret = (key: string) => `opt-at-rest-${key}-0123456789`;
/** Every plaintext the database must never hold. */
const PLAINTEXTS = [CHANNEL_KEY, SECOND_KEY, WEBHOOK_SECRET, ...SECRET_OPTION_KEYS.map(optionSecret)];
const CHANNEL_NAME = 'at-rest-channel-name';

let upstream: MockUpstream;
beforeAll(async () => {
  upstream = await new MockUpstream().start();
});
afterAll(async () => upstream.close());

const ok = (response: { json(): unknown }) => {
  const body = response.json() as { success: boolean; message: string; data: unknown };
  expect(body.success, body.message).toBe(true);
  return body.data;
};

/** Writes a channel (two keys, one channel per line off), every secret option and root's webhook secret through the API. */
async function writeSecrets(test: TestApp, group: string, model: string): Promise<number> {
  const root = await test.login();
  await priceModel(test.context, model, 1, 1);
  const created = ok(
    await test.app.inject({
      method: 'POST',
      url: '/api/channel/',
      headers: root,
      payload: {
        mode: 'multi_to_single',
        type: 1,
        name: CHANNEL_NAME,
        key: `${CHANNEL_KEY}\n${SECOND_KEY}`,
        groups: [group],
        models: model,
        base_url: upstream.url,
      },
    }),
  ) as { id: number } | undefined;
  for (const key of SECRET_OPTION_KEYS) {
    ok(await test.app.inject({ method: 'PUT', url: '/api/option/', headers: root, payload: { key, value: optionSecret(key) } }));
  }
  ok(
    await test.app.inject({
      method: 'PUT',
      url: '/api/user/setting',
      headers: root,
      payload: { notify_type: 'webhook', webhook_url: 'https://hooks.example.com/quota', webhook_secret: WEBHOOK_SECRET },
    }),
  );
  const rows = await test.context.db.kysely.selectFrom('channels').select('id').where('name', '=', CHANNEL_NAME).execute();
  expect(rows).toHaveLength(1);
  return created?.id ?? Number(rows[0]!.id);
}

/** A chat call through the gateway: the upstream must see one of the channel's keys in plain text. */
async function relayCall(test: TestApp, apiKey: string, model: string): Promise<string> {
  const before = upstream.requests.length;
  const response = await test.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: { model, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(response.statusCode, response.body).toBe(200);
  const seen = upstream.requests.slice(before);
  expect(seen).toHaveLength(1);
  expect(seen[0]!.headers.authorization).toMatch(/^Bearer sk-at-rest-(CHANNEL|SECOND)-KEY-/);
  return seen[0]!.key;
}

/** What the stored columns hold, for the databases whose files a test cannot read. */
async function storedSecretColumns(test: TestApp): Promise<string[]> {
  const { kysely } = test.context.db;
  const channel = await kysely.selectFrom('channels').select('key').where('name', '=', CHANNEL_NAME).executeTakeFirstOrThrow();
  const options = await kysely.selectFrom('options').select('value').where('key', 'in', SECRET_OPTION_KEYS).execute();
  const root = await kysely.selectFrom('users').select('setting').where('id', '=', 1).executeTakeFirstOrThrow();
  return [channel.key, ...options.map((row) => row.value ?? ''), root.setting];
}

describe('secrets at rest on SQLite, with the key file beside the database', () => {
  let dir = '';
  let sqlitePath = '';
  // '' keeps the fixed test key of vitest.config.ts out: the server makes its key file.
  const env = () => ({ SQLITE_PATH: sqlitePath, MODELGATE_SECRET_KEY: '' });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'modelgate-at-rest-'));
    sqlitePath = join(dir, 'modelgate.db');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a random key file (mode 0600) and no plaintext secret reaches the database file or its WAL; calls still carry the key', async () => {
    const test = await startTestApp(env());
    const keyFile = `${sqlitePath}.key`;
    try {
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(parseSecretKey(readFileSync(keyFile, 'utf8'))?.length).toBe(32);

      const group = unique('g');
      const model = unique('m');
      await writeSecrets(test, group, model);
      // Root starts a two-factor setup: its TOTP secret is stored too.
      const root = await test.login();
      await test.app.inject({ method: 'POST', url: '/api/verify', headers: root, payload: { method: 'password', password: '123456' } });
      const setup = (await test.app.inject({ method: 'POST', url: '/api/user/2fa/setup', headers: root })).json() as { data: { secret: string } };
      const totpSecret = setup.data.secret;
      expect(totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
      const user = await seedUser(test.context, { group });
      const token = await seedToken(test.context, user.id);
      const usedKey = await relayCall(test, token.apiKey, model);
      expect([CHANNEL_KEY, SECOND_KEY]).toContain(usedKey);
      expect(test.context.options.raw('SMTPToken')).toBe(optionSecret('SMTPToken'));

      // The files as they are while the server runs: most recent writes sit in the WAL.
      const files = [sqlitePath, `${sqlitePath}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path));
      const bytes = Buffer.concat(files);
      expect(bytes.includes(CHANNEL_NAME), 'the scan reads the data the server wrote').toBe(true);
      for (const plaintext of [...PLAINTEXTS, totpSecret]) expect(bytes.includes(plaintext), plaintext).toBe(false);
      for (const stored of await storedSecretColumns(test)) expect(stored).toMatch(/enc:v1:/);
      const totpRow = await test.context.db.kysely.selectFrom('two_fas').select('secret').executeTakeFirstOrThrow();
      expect(totpRow.secret).toMatch(/^enc:v1:/);
    } finally {
      await test.close();
    }
    const closed = Buffer.concat([sqlitePath, `${sqlitePath}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path)));
    expect(closed.includes(CHANNEL_NAME)).toBe(true);
    for (const plaintext of PLAINTEXTS) expect(closed.includes(plaintext), plaintext).toBe(false);
  });

  it('opens everything again after a restart with the same key file', async () => {
    const test = await startTestApp(env());
    try {
      for (const key of SECRET_OPTION_KEYS) expect(test.context.options.raw(key), key).toBe(optionSecret(key));
      // Secret options stay out of GET /api/option/, and so does the key check row.
      const listed = ok(await test.app.inject({ method: 'GET', url: '/api/option/', headers: await test.login() })) as { key: string }[];
      const keys = listed.map((option) => option.key);
      expect(keys).toContain('SystemName');
      expect(keys).not.toContain('SecretKeyCheck');
      for (const key of SECRET_OPTION_KEYS) expect(keys).not.toContain(key);
      const refused = (
        await test.app.inject({ method: 'PUT', url: '/api/option/', headers: await test.login(), payload: { key: 'SecretKeyCheck', value: 'x' } })
      ).json();
      expect(refused).toMatchObject({ success: false });

      const channel = await test.context.db.kysely
        .selectFrom('channels')
        .select(['group', 'models'])
        .where('name', '=', CHANNEL_NAME)
        .executeTakeFirstOrThrow();
      const user = await seedUser(test.context, { group: channel.group });
      const token = await seedToken(test.context, user.id);
      expect([CHANNEL_KEY, SECOND_KEY]).toContain(await relayCall(test, token.apiKey, channel.models));
    } finally {
      await test.close();
    }
  });

  it('refuses to start with a key that is not the database’s, and when the key file is gone', async () => {
    const otherKey = generateSecretKey().toString('base64');
    await expect(startTestApp({ ...env(), MODELGATE_SECRET_KEY: otherKey })).rejects.toThrow(
      /MODELGATE_SECRET_KEY does not open this database's encrypted secrets: set MODELGATE_SECRET_KEY to the key/,
    );
    const keyFile = `${sqlitePath}.key`;
    const saved = readFileSync(keyFile, 'utf8');
    unlinkSync(keyFile);
    await expect(startTestApp(env())).rejects.toThrow(/holds encrypted secrets but its key file .*modelgate\.db\.key is missing/);
    expect(existsSync(keyFile), 'no new key is made for a database that has one').toBe(false);
    // The right key given in the variable opens it without the file.
    const test = await startTestApp({ ...env(), MODELGATE_SECRET_KEY: saved.trim() });
    try {
      expect(test.context.options.raw('EpayKey')).toBe(optionSecret('EpayKey'));
    } finally {
      await test.close();
    }
  });

  it('stops `npm start` with one line naming the variable when the key is wrong', async () => {
    const main = fileURLToPath(new URL('../main.ts', import.meta.url));
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', main],
        { env: { ...process.env, ...env(), MODELGATE_SECRET_KEY: generateSecretKey().toString('hex'), PORT: '0', LOG_LEVEL: 'silent' }, timeout: 60_000 },
        (error, _stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("modelgate: failed to start: MODELGATE_SECRET_KEY does not open this database's encrypted secrets");
  });

  it('refuses a MODELGATE_SECRET_KEY that is not 32 bytes of base64 or hex, naming the variable', async () => {
    for (const bad of ['short', 'a'.repeat(63), Buffer.alloc(16).toString('base64')]) {
      await expect(startTestApp({ ...env(), MODELGATE_SECRET_KEY: bad })).rejects.toThrow(ConfigError);
      await expect(startTestApp({ ...env(), MODELGATE_SECRET_KEY: bad })).rejects.toThrow(/MODELGATE_SECRET_KEY must be 32 bytes/);
    }
    expect(parseSecretKey('ab'.repeat(32))?.length).toBe(32);
  });
});

describe.each(['postgres', 'mysql'] as const)('secrets at rest on %s', (dialect) => {
  it('refuses to start without MODELGATE_SECRET_KEY; with it, the stored columns hold no plaintext and calls carry the key', async () => {
    const fresh = await createFreshDb(dialect);
    await fresh.db.close();
    try {
      await expect(startTestApp({ SQL_DSN: fresh.sqlDsn, MODELGATE_SECRET_KEY: '' })).rejects.toThrow(
        /MODELGATE_SECRET_KEY must be set with (PostgreSQL|MySQL)/,
      );
      const test = await startTestApp({ SQL_DSN: fresh.sqlDsn });
      try {
        const group = unique('g');
        const model = unique('m');
        await writeSecrets(test, group, model);
        const stored = await storedSecretColumns(test);
        for (const value of stored) expect(value).toMatch(/enc:v1:/);
        for (const plaintext of PLAINTEXTS) expect(stored.join('\n').includes(plaintext), plaintext).toBe(false);
        const user = await seedUser(test.context, { group });
        const token = await seedToken(test.context, user.id);
        expect([CHANNEL_KEY, SECOND_KEY]).toContain(await relayCall(test, token.apiKey, model));
      } finally {
        await test.close();
      }
      await expect(startTestApp({ SQL_DSN: fresh.sqlDsn, MODELGATE_SECRET_KEY: generateSecretKey().toString('hex') })).rejects.toThrow(
        /MODELGATE_SECRET_KEY does not open this database's encrypted secrets/,
      );
    } finally {
      await fresh.drop();
    }
  });
});

import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chatCompletionBody, MockUpstream, sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, startRelayTestEnv, unique, type RelayTestEnv, type SeededToken } from '../../relay/testing/relay-fixtures.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { startSmtpCatcher, type SmtpCatcher } from '../../test-support/smtp-catcher.js';
import { WebhookSender } from './webhook-notify.js';

const SMTP_USER = 'gate@example.com';
const SMTP_PASSWORD = 'smtp-secret-password';
const SITE_THRESHOLD = 1000;
const SERVER_ADDRESS = 'https://gate.example.com';
const SECRET = 'whsec-user-secret-42';
/** Flushes only when a test drains: apps sharing one SQLite file in this process never write at once. */
const NODE_ENV = { BATCH_UPDATE_INTERVAL: '3600' };
/** Each chat costs 375 units on gpt-4o-mini (1,000 prompt and 1,000 completion tokens). */
const CALL_COST = 375;

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A real HTTP server standing in for the user's webhook receiver. */
class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  status = 204;
  private server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      this.deliveries.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(parts).toString('utf8') });
      res.statusCode = this.status;
      res.end();
    });
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function configure(env: RelayTestEnv, smtp: SmtpCatcher, changes: Record<string, string> = {}) {
  const values: Record<string, string> = {
    SMTPServer: '127.0.0.1',
    SMTPPort: String(smtp.port),
    SMTPSSLEnabled: 'false',
    SMTPAccount: SMTP_USER,
    SMTPToken: SMTP_PASSWORD,
    SMTPFrom: 'noreply@example.com',
    QuotaRemindThreshold: String(SITE_THRESHOLD),
    ServerAddress: SERVER_ADDRESS,
    DisplayInCurrencyEnabled: 'false',
    ...changes,
  };
  for (const [key, value] of Object.entries(values)) await env.context.options.set(key, value);
}

/** The local receivers are on 127.0.0.1, which the reminder's own sender refuses (as new-api's SSRF check does). */
function allowLocalWebhooks(env: RelayTestEnv) {
  env.runtime.reminders.webhooks = new WebhookSender({ allowPrivateNetwork: true });
}

async function chat(env: RelayTestEnv, token: SeededToken) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const answer = await response.body.text();
  expect(response.statusCode, answer).toBe(200);
}

async function settle(env: RelayTestEnv) {
  await env.runtime.drain();
  await env.runtime.reminders.settled();
}

/** A registered user (so they can sign in and save their setting) with a balance, an email, a channel and a token. */
async function member(env: RelayTestEnv, upstream: MockUpstream, quota: number, email: string) {
  const username = unique('n').slice(0, 12);
  const registered = await env.test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  expect(registered.json().success, registered.body).toBe(true);
  const group = unique('g');
  const db = env.context.db.kysely;
  await db.updateTable('users').set({ quota, email, group }).where('username', '=', username).execute();
  const id = Number((await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id);
  env.context.changes.emit('user', id);
  const token = await seedToken(env.context, id);
  await seedChannel(env.context, { key: unique('key'), baseUrl: upstream.url, models: ['gpt-4o-mini'], groups: [group] });
  const headers = await env.test.login(username, 'password123');
  const saveSetting = async (setting: object) => {
    const response = await env.test.app.inject({ method: 'PUT', url: '/api/user/setting', headers, payload: setting });
    expect(response.json(), response.body).toEqual({ success: true, message: '设置已更新' });
  };
  return { id, email, token, saveSetting };
}

async function books(env: RelayTestEnv, userId: number) {
  const db = env.context.db.kysely;
  const user = await db.selectFrom('users').select(['quota', 'quota_reminded_at']).where('id', '=', userId).executeTakeFirstOrThrow();
  return { quota: Number(user.quota), remindedAt: Number(user.quota_reminded_at) };
}

const mailsTo = (smtp: SmtpCatcher, address: string) => smtp.mails.filter((mail) => mail.to.includes(address));

describe.each(['sqlite', 'postgres', 'mysql'] as const)('the quota reminder follows the user’s own setting (PUT /api/user/setting) on %s', (dialect) => {
  let fresh: FreshDb | undefined;
  let sqliteDir = '';
  let dbEnv: Record<string, string> = {};
  let smtp: SmtpCatcher;
  let receiver: WebhookReceiver;
  const upstream = new MockUpstream();
  let env: RelayTestEnv;

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      // A file outside the app's own directory, shared with the second process of a test.
      sqliteDir = mkdtempSync(join(tmpdir(), 'modelgate-notify-'));
      dbEnv = { ...NODE_ENV, SQLITE_PATH: join(sqliteDir, 'modelgate.db') };
    } else {
      fresh = await createFreshDb(dialect);
      dbEnv = { ...NODE_ENV, SQL_DSN: fresh.sqlDsn };
    }
    smtp = await startSmtpCatcher({ user: SMTP_USER, pass: SMTP_PASSWORD });
    receiver = await new WebhookReceiver().start();
    await upstream.start();
    upstream.respond((_request, response) =>
      sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 })),
    );
    env = await startRelayTestEnv(dbEnv);
    allowLocalWebhooks(env);
    await configure(env, smtp);
  });
  afterAll(async () => {
    await env.close();
    await upstream.close();
    await receiver.close();
    await smtp.close();
    await fresh?.drop();
    if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
  });

  it('posts new-api’s signed webhook payload at the user’s own threshold, once, and mails nothing', async () => {
    const user = await member(env, upstream, 5000, 'hooked@example.com');
    await user.saveSetting({ notify_type: 'webhook', quota_warning_threshold: 4000, webhook_url: `${receiver.url}/quota?tenant=7`, webhook_secret: SECRET });

    await chat(env, user.token);
    await settle(env);
    // 5000 - 375 = 4625: above the user's 4000 (and far above the site's 1000).
    expect(receiver.deliveries).toHaveLength(0);

    await chat(env, user.token);
    await chat(env, user.token);
    await settle(env);
    const { quota, remindedAt } = await books(env, user.id);
    expect(quota).toBe(5000 - 3 * CALL_COST);
    expect(quota).toBeGreaterThan(SITE_THRESHOLD);
    expect(receiver.deliveries).toHaveLength(1);
    const delivery = receiver.deliveries[0]!;
    expect(delivery.path).toBe('/quota?tenant=7');
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['x-webhook-signature']).toBe(createHmac('sha256', SECRET).update(delivery.raw).digest('hex'));
    const link = `${SERVER_ADDRESS}/topup`;
    const payload = JSON.parse(delivery.raw);
    expect(Object.keys(payload)).toEqual(['type', 'title', 'content', 'values', 'timestamp']);
    expect(payload).toMatchObject({
      type: 'quota_exceed',
      title: '您的额度即将用尽',
      content: `您的额度即将用尽，当前剩余额度为 ${quota}，为了不影响您的使用，请及时充值。<br/>充值链接：<a href='${link}'>${link}</a>`,
      values: ['您的额度即将用尽', String(quota), link, link],
    });
    expect(Math.abs(payload.timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(remindedAt).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(mailsTo(smtp, user.email)).toHaveLength(0);

    // Within two hours: nothing more, however low it goes.
    await chat(env, user.token);
    await settle(env);
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('posts without a signature when no secret is set', async () => {
    const user = await member(env, upstream, 1200, 'unsigned@example.com');
    await user.saveSetting({ notify_type: 'webhook', quota_warning_threshold: 0, webhook_url: `${receiver.url}/plain` });
    const before = receiver.deliveries.length;
    await chat(env, user.token);
    await settle(env);
    // 0: the site's threshold (1000) applies.
    const delivered = receiver.deliveries.slice(before);
    expect(delivered.map((delivery) => delivery.path)).toEqual(['/plain']);
    expect(delivered[0]!.headers).not.toHaveProperty('x-webhook-signature');
  });

  it('mails the notification email instead of the account email, at the user’s threshold', async () => {
    const user = await member(env, upstream, 5000, 'account@example.com');
    await user.saveSetting({ notify_type: 'email', quota_warning_threshold: 4800, notification_email: 'alerts@example.com' });
    await chat(env, user.token);
    await settle(env);
    const { quota } = await books(env, user.id);
    expect(quota).toBe(5000 - CALL_COST);
    const [mail, ...more] = mailsTo(smtp, 'alerts@example.com');
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('您的额度即将用尽');
    expect(mail!.html).toContain(`当前剩余额度为 ${quota}，为了不影响您的使用，请及时充值。`);
    expect(mailsTo(smtp, user.email)).toHaveLength(0);
  });

  it('logs a failed webhook without its secret or address, gives the claim back, and another process delivers later', async () => {
    const user = await member(env, upstream, 3000, 'retry@example.com');
    await user.saveSetting({
      notify_type: 'webhook',
      quota_warning_threshold: 4000,
      webhook_url: `${receiver.url}/flaky?token=url-secret-77`,
      webhook_secret: SECRET,
    });
    receiver.status = 500;
    const warn = vi.spyOn(env.context.logger, 'warn');
    const before = receiver.deliveries.length;
    try {
      await chat(env, user.token);
      await settle(env);
      const failures = warn.mock.calls.filter(([, message]) => message === 'quota reminder webhook failed; another charge tries again later');
      expect(failures).toHaveLength(1);
      const logged = JSON.stringify(failures[0]);
      expect(logged).toContain('the webhook answered HTTP 500');
      expect(logged).not.toContain(SECRET);
      expect(logged).not.toContain('url-secret-77');
      expect(logged).not.toContain(receiver.url);
    } finally {
      warn.mockRestore();
    }
    expect(receiver.deliveries.length - before).toBe(1);
    expect(await books(env, user.id)).toEqual({ quota: 3000 - CALL_COST, remindedAt: 0 });

    receiver.status = 200;
    const other = await startRelayTestEnv(dbEnv);
    try {
      allowLocalWebhooks(other);
      await chat(other, user.token);
      await settle(other);
    } finally {
      await other.close();
    }
    const delivered = receiver.deliveries.slice(before);
    expect(delivered.map((delivery) => delivery.path)).toEqual(['/flaky?token=url-secret-77', '/flaky?token=url-secret-77']);
    expect((await books(env, user.id)).remindedAt).toBeGreaterThan(0);
  });

  it('does not post to this server’s own network by default', async () => {
    const sender = new WebhookSender();
    const before = receiver.deliveries.length;
    await expect(sender.send(`${receiver.url}/internal`, '', { type: 't', title: 't', content: 'c', values: [] })).rejects.toThrow(
      'the webhook address is not on the public internet',
    );
    await expect(sender.send('http://localhost:9/internal', '', { type: 't', title: 't', content: 'c', values: [] })).rejects.toThrow(
      'not on the public internet',
    );
    await sender.close();
    expect(receiver.deliveries.length).toBe(before);
  });
});

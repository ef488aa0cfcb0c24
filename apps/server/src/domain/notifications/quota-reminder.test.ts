import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chatCompletionBody, MockUpstream, sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, unique, type RelayTestEnv, type SeededToken } from '../../relay/testing/relay-fixtures.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { startSmtpCatcher, type SmtpCatcher } from '../../test-support/smtp-catcher.js';
import { quotaReminderMail } from '../mail/templates.js';
import { formatQuotaAsConsole } from './console-quota.js';
import { REMIND_INTERVAL_SECONDS } from './quota-reminder.js';

const SMTP_USER = 'gate@example.com';
const SMTP_PASSWORD = 'smtp-secret-password';
const THRESHOLD = 4000;
const SERVER_ADDRESS = 'https://gate.example.com';
/** Flushes only when a test drains: apps sharing one SQLite file in this process never write at once. */
const NODE_ENV = { BATCH_UPDATE_INTERVAL: '3600' };

/** The mail settings and the threshold, stored as options (every node started later reads them). */
async function configure(env: RelayTestEnv, smtp: SmtpCatcher, changes: Record<string, string> = {}) {
  const values: Record<string, string> = {
    SMTPServer: '127.0.0.1',
    SMTPPort: String(smtp.port),
    SMTPSSLEnabled: 'false',
    SMTPAccount: SMTP_USER,
    SMTPToken: SMTP_PASSWORD,
    SMTPFrom: 'noreply@example.com',
    QuotaRemindThreshold: String(THRESHOLD),
    ServerAddress: SERVER_ADDRESS,
    // Raw units, so the mail's remaining quota can be compared exactly.
    DisplayInCurrencyEnabled: 'false',
    ...changes,
  };
  for (const [key, value] of Object.entries(values)) await env.context.options.set(key, value);
}

/** One chat call through the gateway; the upstream reports 1,000 prompt and 1,000 completion tokens (375 units on gpt-4o-mini). */
async function chat(env: RelayTestEnv, token: SeededToken) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const answer = await response.body.text();
  expect(response.statusCode, answer).toBe(200);
}

/** Charges written (drain: calls settled, then a flush), and the reminder checks that flush queued finished. */
async function settle(...envs: RelayTestEnv[]) {
  await Promise.all(envs.map((env) => env.runtime.drain()));
  await Promise.all(envs.map((env) => env.runtime.reminders.settled()));
}

const mailsTo = (smtp: SmtpCatcher, address: string) => smtp.mails.filter((mail) => mail.to.includes(address));

/** A user in a group of its own, served by a channel to `upstream`, with an email and an unlimited token. */
async function payer(env: RelayTestEnv, upstream: MockUpstream, quota: number, email: string) {
  const user = await seedUser(env.context, { quota });
  await env.context.db.kysely.updateTable('users').set({ email }).where('id', '=', user.id).execute();
  const token = await seedToken(env.context, user.id);
  await seedChannel(env.context, { key: unique('key'), baseUrl: upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
  return { user, token, email };
}

/** What the user can spend once every node has drained: the balance, and what the logs say was charged. */
async function balanceOf(env: RelayTestEnv, userId: number) {
  const db = env.context.db.kysely;
  const user = await db.selectFrom('users').select(['quota', 'used_quota', 'quota_reminded_at']).where('id', '=', userId).executeTakeFirstOrThrow();
  const logs = await db.selectFrom('logs').select('quota').where('user_id', '=', userId).where('type', '=', 2).execute();
  return {
    quota: Number(user.quota),
    used: Number(user.used_quota),
    remindedAt: Number(user.quota_reminded_at),
    logged: logs.reduce((sum, log) => sum + Number(log.quota), 0),
  };
}

function answering(upstream: MockUpstream) {
  upstream.respond((_request, response) =>
    sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 })),
  );
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)('the quota reminder mail on %s', (dialect) => {
  let fresh: FreshDb | undefined;
  let sqliteDir = '';
  let dbEnv: Record<string, string> = {};
  let smtp: SmtpCatcher;
  const upstream = new MockUpstream();
  let env: RelayTestEnv;
  let low: Awaited<ReturnType<typeof payer>>;
  let rich: Awaited<ReturnType<typeof payer>>;
  const open: RelayTestEnv[] = [];
  const startNode = async () => {
    const node = await startRelayTestEnv(dbEnv);
    open.push(node);
    return node;
  };
  const stopNode = async (node: RelayTestEnv) => {
    open.splice(open.indexOf(node), 1);
    await node.close();
  };

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      // A file outside every app's own directory, so it outlives the restarts.
      sqliteDir = mkdtempSync(join(tmpdir(), 'modelgate-remind-'));
      dbEnv = { ...NODE_ENV, SQLITE_PATH: join(sqliteDir, 'modelgate.db') };
    } else {
      fresh = await createFreshDb(dialect);
      dbEnv = { ...NODE_ENV, SQL_DSN: fresh.sqlDsn };
    }
    smtp = await startSmtpCatcher({ user: SMTP_USER, pass: SMTP_PASSWORD });
    await upstream.start();
    answering(upstream);
    env = await startNode();
    await configure(env, smtp);
    low = await payer(env, upstream, 5000, `low-${dialect}@example.com`);
    rich = await payer(env, upstream, 1_000_000_000, `rich-${dialect}@example.com`);
  });
  afterAll(async () => {
    for (const node of [...open]) await stopNode(node);
    await upstream.close();
    await smtp.close();
    await fresh?.drop();
    if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
  });

  it('mails once when calls take the balance below the threshold, and not for more calls below it', async () => {
    await chat(env, low.token);
    await chat(env, rich.token);
    await settle(env);
    // 5000 - 375: still above 4000.
    expect((await balanceOf(env, low.user.id)).quota).toBeGreaterThanOrEqual(THRESHOLD);
    expect(mailsTo(smtp, low.email)).toHaveLength(0);

    await chat(env, low.token);
    await chat(env, low.token);
    await settle(env);
    const books = await balanceOf(env, low.user.id);
    expect(books.quota).toBe(5000 - books.logged);
    expect(books.quota).toBeLessThan(THRESHOLD);
    const [mail, ...more] = mailsTo(smtp, low.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('您的额度即将用尽');
    expect(mail!.authUser).toBe(SMTP_USER);
    expect(mail!.html).toContain(`当前剩余额度为 ${books.quota}，为了不影响您的使用，请及时充值。`);
    expect(mail!.html).toContain(`<a href="${SERVER_ADDRESS}/topup">${SERVER_ADDRESS}/topup</a>`);
    expect(books.remindedAt).toBeGreaterThan(Date.now() / 1000 - 60);

    await chat(env, low.token);
    await chat(env, rich.token);
    await settle(env);
    await chat(env, low.token);
    await settle(env);
    expect(mailsTo(smtp, low.email)).toHaveLength(1);
    // A user far above the threshold never gets one.
    expect(mailsTo(smtp, rich.email)).toHaveLength(0);
    // Billing went on as before: every charge logged, nothing lost to the reminder.
    const after = await balanceOf(env, low.user.id);
    expect(after.quota).toBe(5000 - after.logged);
    expect(after.used).toBe(after.logged);
  });

  it('sends no second mail from a restarted process within two hours', async () => {
    await stopNode(env);
    env = await startNode();
    await chat(env, low.token);
    await settle(env);
    expect((await balanceOf(env, low.user.id)).quota).toBeLessThan(THRESHOLD);
    expect(mailsTo(smtp, low.email)).toHaveLength(1);
  });

  it('mails again once two hours have passed, from exactly one of two processes', async () => {
    await stopNode(env);
    const remindedAt = (await balanceOf((env = await startNode()), low.user.id)).remindedAt;
    await env.context.db.kysely
      .updateTable('users')
      .set({ quota_reminded_at: remindedAt - REMIND_INTERVAL_SECONDS - 1 })
      .where('id', '=', low.user.id)
      .execute();
    const other = await startNode();
    // PostgreSQL and MariaDB: both charge and check at once, racing for the claim. SQLite: one
    // after the other (two apps in one process would block on each other's write lock).
    if (dialect === 'sqlite') {
      await chat(env, low.token);
      await settle(env);
      await chat(other, low.token);
      await settle(other);
    } else {
      await Promise.all([chat(env, low.token), chat(other, low.token)]);
      await settle(env, other);
    }
    const mails = mailsTo(smtp, low.email);
    expect(mails).toHaveLength(2);
    const books = await balanceOf(env, low.user.id);
    // The mailing node may have checked before the other's charge was flushed.
    const shown = Number(/当前剩余额度为 (\d+)，/.exec(mails[1]!.html)?.[1]);
    expect([books.quota, books.quota + 375]).toContain(shown);
    // The claim wrote the time of this mail over the moved-back one.
    expect(books.remindedAt).toBeGreaterThanOrEqual(remindedAt);
    await stopNode(other);
  });
});

describe('when the quota reminder stays silent', () => {
  let smtp: SmtpCatcher;
  const upstream = new MockUpstream();
  let env: RelayTestEnv;

  beforeAll(async () => {
    smtp = await startSmtpCatcher({ user: SMTP_USER, pass: SMTP_PASSWORD });
    await upstream.start();
    answering(upstream);
    env = await startRelayTestEnv(NODE_ENV);
    await configure(env, smtp);
  });
  afterAll(async () => {
    await env.close();
    await upstream.close();
    await smtp.close();
  });

  it('sends nothing with SMTP unset, with the threshold 0, or to a user without an email; then mails when all are set', async () => {
    const user = await payer(env, upstream, 3000, 'quiet@example.com');
    const noEmail = await payer(env, upstream, 3000, '');

    await configure(env, smtp, { SMTPServer: '' });
    await chat(env, user.token);
    await settle(env);
    await configure(env, smtp, { QuotaRemindThreshold: '0' });
    await chat(env, user.token);
    await settle(env);
    expect(mailsTo(smtp, user.email)).toHaveLength(0);
    expect((await balanceOf(env, user.user.id)).remindedAt).toBe(0);

    await configure(env, smtp);
    await chat(env, noEmail.token);
    await chat(env, user.token);
    await settle(env);
    expect(smtp.mails.map((mail) => mail.to)).toEqual([[user.email]]);
    expect((await balanceOf(env, noEmail.user.id)).remindedAt).toBe(0);
    const books = await balanceOf(env, user.user.id);
    expect(books.quota).toBe(3000 - books.logged);
    expect(books.logged).toBe(3 * 375);
  });

  it('logs a failed send without the SMTP password, gives the claim back, and bills as usual', async () => {
    const user = await payer(env, upstream, 3000, 'unlucky@example.com');
    await configure(env, smtp, { SMTPToken: 'wrong-password' });
    const warn = vi.spyOn(env.context.logger, 'warn');
    try {
      await chat(env, user.token);
      await settle(env);
      const failures = warn.mock.calls.filter(([, message]) => message === 'quota reminder mail failed; another charge tries again later');
      expect(failures).toHaveLength(1);
      expect(JSON.stringify(failures[0])).not.toContain('wrong-password');
      expect(JSON.stringify(failures[0])).toMatch(/Invalid username or password/);
    } finally {
      warn.mockRestore();
    }
    expect(mailsTo(smtp, user.email)).toHaveLength(0);
    const books = await balanceOf(env, user.user.id);
    expect(books).toMatchObject({ quota: 3000 - 375, used: 375, logged: 375, remindedAt: 0 });

    // The claim went back: another process (no memory of the failure) mails on the user's next charge.
    await configure(env, smtp);
    const other = await startRelayTestEnv({ ...NODE_ENV, SQLITE_PATH: join(env.test.dir, 'modelgate.db') });
    try {
      await chat(other, user.token);
      await settle(other);
    } finally {
      await other.close();
    }
    expect(mailsTo(smtp, user.email)).toHaveLength(1);
  });

  it('writes the remaining quota as the console shows it, and says when nothing is left', async () => {
    const { options } = env.context;
    await options.set('DisplayInCurrencyEnabled', 'true');
    expect([1_234_567, 2625, 500, 0, -300].map((quota) => formatQuotaAsConsole(options, quota))).toEqual(['$2.47', '$0.01', '≈$0.01', '$0.00', '≈-$0.01']);
    await options.set('DisplayInCurrencyEnabled', 'false');
    expect([38_750, 3875, 2_500_000].map((quota) => formatQuotaAsConsole(options, quota))).toEqual(['38.8k', '3875', '2.5M']);
    const exhausted = quotaReminderMail('a@example.com', '$0.00', true, undefined);
    expect(exhausted.subject).toBe('您的额度已用尽');
    expect(exhausted.html).toBe('<p>您的额度已用尽，当前剩余额度为 $0.00，为了不影响您的使用，请及时充值。</p>');
  });
});

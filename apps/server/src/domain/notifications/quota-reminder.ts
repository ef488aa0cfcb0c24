import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import { sendMail } from '../mail/mailer.js';
import { quotaReminderMail } from '../mail/templates.js';
import type { OptionService } from '../options/option-service.js';
import { quotaWarningPreference, type QuotaWarningPreference } from '../users/user-setting.js';
import { formatQuotaAsConsole } from './console-quota.js';
import { WebhookError, WebhookSender, type Notice } from './webhook-notify.js';

/** A user gets at most one reminder in this many seconds, across restarts and nodes. */
export const REMIND_INTERVAL_SECONDS = 2 * 60 * 60;
/** After a failed send the user is looked at again no sooner than this (the claim is given back). */
const RETRY_AFTER_FAILURE_SECONDS = 10 * 60;
/** Users read per query. */
const READ_CHUNK = 500;
/**
 * How long a user's own warning setting (threshold, mail or webhook) read with their balance is
 * trusted: a change made on any node applies within this.
 */
const PREFERENCE_TTL_SECONDS = 60;
/** new-api's dto.NotifyTypeQuotaExceed: the `type` of the webhook payload. */
const QUOTA_NOTICE_TYPE = 'quota_exceed';

export interface QuotaReminderDeps {
  db: Db;
  options: OptionService;
  logger: Logger;
  /**
   * The balance this process's relay cache holds for the user (the database value plus this
   * process's lease, less its charges), or undefined when not cached. A cheap filter only: users it
   * shows at or above the threshold are not read from the database.
   */
  cachedBalance(userId: number): number | undefined;
  /**
   * What the users can spend, by id: the column, this process's lease less its unwritten charges
   * and every other process's lease row (billing/spendable-quota.ts, read in one statement, as a
   * take or a give-back moves money between them in one transaction).
   */
  spendable(userIds: number[]): Promise<Map<number, number>>;
  webhooks?: WebhookSender;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface Candidate {
  id: number;
  email: string;
  balance: number;
  remindedAt: number;
  preference: QuotaWarningPreference;
}

/** Where a reminder goes: the user's webhook, or a mail address. */
type Destination = { kind: 'webhook'; url: string; secret: string } | { kind: 'email'; to: string };

interface KnownPreference {
  /** The user's own threshold (0: the site's). */
  threshold: number;
  webhook: boolean;
  until: number;
}

/**
 * The "quota running low" mail (new-api's QuotaRemindThreshold notice), sent as a side effect of
 * billing and never on its path:
 *
 * - the relay notes each charged user in a Set (noteCharge: the only hot-path cost);
 * - after a ledger flush commits, the users charged before it began are checked on a queue of
 *   this process's own: those the relay cache still shows at or above the threshold are dropped
 *   without the database; the rest are read (users.quota plus every node's lease rows, less this
 *   process's unflushed charges: the balance the user can still spend);
 * - the threshold is the user's own quota_warning_threshold (PUT /api/user/setting) when set,
 *   else QuotaRemindThreshold; it is known without the database for PREFERENCE_TTL_SECONDS after
 *   the user was last read;
 * - a user below it is reminded only after claiming the window with one conditional UPDATE of
 *   users.quota_reminded_at, so of every process and every restart exactly one sends per
 *   REMIND_INTERVAL_SECONDS: by webhook (new-api's payload, signed with the user's secret) when the
 *   user chose one, else by mail to their notification email or, without one, their account email;
 * - a failed send is logged (without the SMTP account or password, the webhook's secret or its
 *   address) and its claim given back.
 *
 * Nothing here throws into billing: a check that fails is logged and its users are checked again
 * when they are next charged. A threshold of 0 (the user's unset and the site's 0) turns reminders
 * off; an unset SMTPServer turns the mails off, not the webhooks.
 */
export class QuotaReminders {
  private charged = new Set<number>();
  /** Users not to read before this (unix seconds): reminded lately, or a send just failed. */
  private readonly quietUntil = new Map<number, number>();
  /** Each user's own warning setting, as last read with their balance. */
  private readonly preferences = new Map<number, KnownPreference>();
  private work: Promise<void> = Promise.resolve();
  /** Posts the webhooks; tests with a local receiver put in one that may reach private networks. */
  webhooks: WebhookSender;

  constructor(private readonly deps: QuotaReminderDeps) {
    this.webhooks = deps.webhooks ?? new WebhookSender();
  }

  /** The relay charged the user: synchronous and allocation-free for a user already noted. */
  noteCharge(userId: number): void {
    this.charged.add(userId);
  }

  /**
   * Runs one ledger flush. The users charged before it began (their charges are in its batch) are
   * checked once it has committed, off the flush's path; if it fails they wait for the next one.
   * `flush` must take its batch synchronously when called (QuotaLedger.flush does).
   */
  afterFlush<T>(flush: () => Promise<T>): Promise<T> {
    const charged = this.charged;
    this.charged = new Set();
    const putBack = () => {
      for (const userId of charged) this.charged.add(userId);
    };
    let flushing: Promise<T>;
    try {
      flushing = flush();
    } catch (error) {
      putBack();
      throw error;
    }
    return flushing.then(
      (result) => {
        this.enqueue(charged);
        return result;
      },
      (error: unknown) => {
        putBack();
        throw error;
      },
    );
  }

  /** Resolves when every check queued so far (reads, claims, mails) is done. */
  settled(): Promise<void> {
    return this.work;
  }

  private enqueue(userIds: Set<number>): void {
    if (userIds.size === 0) return;
    this.work = this.work.then(() => this.check(userIds)).catch((error: unknown) => this.deps.logger.error({ err: error }, 'quota reminder check failed'));
  }

  private async check(userIds: Set<number>): Promise<void> {
    const { options } = this.deps;
    const siteThreshold = options.number('QuotaRemindThreshold');
    const mailOn = options.string('SMTPServer') !== '';
    const now = nowSeconds();
    for (const [userId, until] of this.quietUntil) if (until <= now) this.quietUntil.delete(userId);
    for (const [userId, known] of this.preferences) if (known.until <= now) this.preferences.delete(userId);
    const thresholdOf = (own: number) => (own > 0 ? own : siteThreshold);
    const due: number[] = [];
    for (const userId of userIds) {
      if (this.quietUntil.has(userId)) continue;
      const known = this.preferences.get(userId);
      if (known) {
        const threshold = thresholdOf(known.threshold);
        if (!(threshold > 0) || (!known.webhook && !mailOn)) continue;
        const cached = this.deps.cachedBalance(userId);
        if (cached !== undefined && cached >= threshold) continue;
      }
      due.push(userId);
    }
    for (let start = 0; start < due.length; start += READ_CHUNK) {
      for (const candidate of await this.read(due.slice(start, start + READ_CHUNK))) {
        const { preference } = candidate;
        this.preferences.set(candidate.id, {
          threshold: preference.threshold,
          webhook: preference.type === 'webhook',
          until: now + PREFERENCE_TTL_SECONDS,
        });
        const threshold = thresholdOf(preference.threshold);
        if (!(threshold > 0) || candidate.balance >= threshold) continue;
        const destination = destinationOf(candidate, mailOn);
        if (!destination) continue;
        if (candidate.remindedAt > now - REMIND_INTERVAL_SECONDS) {
          this.quietUntil.set(candidate.id, candidate.remindedAt + REMIND_INTERVAL_SECONDS);
          continue;
        }
        await this.remind(candidate, destination, now);
      }
    }
  }

  /**
   * The users, their warning setting, and what they can still spend. The balance comes from
   * SpendableQuota: read apart, the column and the lease rows once showed a lease in neither (a
   * mail said 375 where the user had 2,000).
   */
  private async read(userIds: number[]): Promise<Candidate[]> {
    const users = await this.deps.db.kysely
      .selectFrom('users')
      .select(['id', 'email', 'quota_reminded_at', 'setting'])
      .where('id', 'in', userIds)
      .where('deleted_at', 'is', null)
      .execute();
    if (users.length === 0) return [];
    const balances = await this.deps.spendable(users.map((user) => Number(user.id)));
    return users.flatMap((user) => {
      const id = Number(user.id);
      const balance = balances.get(id);
      if (balance === undefined) return [];
      return {
        id,
        email: user.email,
        balance,
        remindedAt: Number(user.quota_reminded_at),
        preference: quotaWarningPreference(user.setting, this.deps.db.secrets),
      };
    });
  }

  private async remind(candidate: Candidate, destination: Destination, now: number): Promise<void> {
    const { db, options, logger } = this.deps;
    const claimed = await db.kysely
      .updateTable('users')
      .set({ quota_reminded_at: now })
      .where('id', '=', candidate.id)
      .where('quota_reminded_at', '<=', now - REMIND_INTERVAL_SECONDS)
      .executeTakeFirst();
    this.quietUntil.set(candidate.id, now + REMIND_INTERVAL_SECONDS);
    // Another process (or an earlier run of this one) reminded the user within the window.
    if (Number(claimed.numUpdatedRows) !== 1) return;
    const serverAddress = options.string('ServerAddress');
    const topUpLink = serverAddress === '' ? undefined : `${serverAddress}/topup`;
    const remaining = formatQuotaAsConsole(options, candidate.balance);
    try {
      if (destination.kind === 'webhook') {
        await this.webhooks.send(destination.url, destination.secret, quotaNotice(remaining, candidate.balance <= 0, topUpLink));
        logger.info({ userId: candidate.id }, 'quota reminder sent to the webhook');
      } else {
        await sendMail(options, quotaReminderMail(destination.to, remaining, candidate.balance <= 0, topUpLink));
        logger.info({ userId: candidate.id }, 'quota reminder mailed');
      }
    } catch (error) {
      if (destination.kind === 'webhook') {
        // WebhookError messages name neither the address nor the secret.
        const reason = error instanceof WebhookError ? error.message : 'the webhook failed';
        logger.warn({ userId: candidate.id, reason }, 'quota reminder webhook failed; another charge tries again later');
      } else {
        // The message names the SMTP failure, never the account's password (logged without the error object).
        logger.warn({ userId: candidate.id, reason: (error as Error).message }, 'quota reminder mail failed; another charge tries again later');
      }
      await db.kysely
        .updateTable('users')
        .set({ quota_reminded_at: candidate.remindedAt })
        .where('id', '=', candidate.id)
        .where('quota_reminded_at', '=', now)
        .execute();
      this.quietUntil.set(candidate.id, now + RETRY_AFTER_FAILURE_SECONDS);
    }
  }
}

/** The user's webhook when they chose one, else a mail address when mails can be sent. */
function destinationOf(candidate: Candidate, mailOn: boolean): Destination | undefined {
  const { preference } = candidate;
  if (preference.type === 'webhook') {
    return preference.webhookUrl === '' ? undefined : { kind: 'webhook', url: preference.webhookUrl, secret: preference.webhookSecret };
  }
  const to = preference.notificationEmail || candidate.email;
  return mailOn && to !== '' ? { kind: 'email', to } : undefined;
}

/** new-api's quota notice (checkAndSendQuotaNotify): the same words as the mail. */
export function quotaNotice(remaining: string, exhausted: boolean, topUpLink: string | undefined): Notice {
  const prompt = exhausted ? '您的额度已用尽' : '您的额度即将用尽';
  if (topUpLink === undefined) {
    return {
      type: QUOTA_NOTICE_TYPE,
      title: prompt,
      content: '{{value}}，当前剩余额度为 {{value}}，为了不影响您的使用，请及时充值。',
      values: [prompt, remaining],
    };
  }
  return {
    type: QUOTA_NOTICE_TYPE,
    title: prompt,
    content: "{{value}}，当前剩余额度为 {{value}}，为了不影响您的使用，请及时充值。<br/>充值链接：<a href='{{value}}'>{{value}}</a>",
    values: [prompt, remaining, topUpLink, topUpLink],
  };
}

import type { ServerResponse } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { request, type Dispatcher } from 'undici';
import type { AppContext } from '../../app-context.js';
import type { RateFigures } from '../../domain/relay-cache/rate-figures.js';
import { chatCompletionBody, type RecordedRequest, type UpstreamHandler } from './mock-upstream.js';
import { seedChannel, seedToken, seedUser, unique, type RelayTestEnv, type SeededToken } from './relay-fixtures.js';

/** Tests of the relay's rate limits (rate-limits/): callers with limits, calls, and an upstream that holds its answers. */

export const LIMITED_MODEL = 'gpt-4o-mini';

const COLUMNS = { rpm: 'rpm_limit', tpm: 'tpm_limit', rpd: 'rpd_limit', concurrency: 'concurrency_limit' } as const;

function columnsOf(figures: Partial<RateFigures>): Record<string, number> {
  return Object.fromEntries(Object.entries(figures).map(([kind, value]) => [COLUMNS[kind as keyof RateFigures], value]));
}

/** Sets a token's limits as the token API would (its cache entry dropped). */
export async function setTokenLimits(context: AppContext, token: SeededToken, figures: Partial<RateFigures>): Promise<void> {
  await context.db.kysely.updateTable('tokens').set(columnsOf(figures)).where('id', '=', token.id).execute();
  context.changes.emit('token', token.key);
}

export async function setUserLimits(context: AppContext, userId: number, figures: Partial<RateFigures>): Promise<void> {
  await context.db.kysely.updateTable('users').set(columnsOf(figures)).where('id', '=', userId).execute();
  context.changes.emit('user', userId);
}

export interface LimitedPayer {
  userId: number;
  group: string;
  token: SeededToken;
}

/**
 * A user with a token and a channel of their own group on `upstream`, limits as given. Redis
 * counters outlive a test database, and fresh databases number their users from 1 again: with
 * `freshId` the user gets an id no other run is likely to have had.
 */
export async function seedLimitedPayer(
  env: RelayTestEnv,
  options: { token?: Partial<RateFigures>; user?: Partial<RateFigures>; freshId?: boolean; channel?: boolean } = {},
): Promise<LimitedPayer> {
  const { context } = env;
  const seeded = await seedUser(context);
  let userId = seeded.id;
  if (options.freshId) {
    userId = 100_000_000 + Math.floor(Math.random() * 2_000_000_000);
    await context.db.kysely.updateTable('users').set({ id: userId }).where('id', '=', seeded.id).execute();
  }
  const token = await seedToken(context, userId);
  if (options.token) await setTokenLimits(context, token, options.token);
  if (options.user) await setUserLimits(context, userId, options.user);
  if (options.channel !== false) {
    await seedChannel(context, { key: unique('key'), baseUrl: env.upstream.url, models: [LIMITED_MODEL], groups: [seeded.group] });
  }
  return { userId, group: seeded.group, token };
}

export interface CallAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are read field by field.
  json(): any;
}

const CHAT_BODY = { model: LIMITED_MODEL, messages: [{ role: 'user', content: 'hi' }] };

/** One call of `path` (chat completions by default), answered whole. */
export async function relayCall(
  gateway: string,
  apiKey: string,
  options: { path?: string; body?: unknown; headers?: Record<string, string>; dispatcher?: Dispatcher; signal?: AbortSignal } = {},
): Promise<CallAnswer> {
  const response = await request(`${gateway}${options.path ?? '/v1/chat/completions'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(options.body ?? CHAT_BODY),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) };
}

/**
 * An upstream that holds every chat call until told to answer, counting the calls it holds at
 * once: what a concurrency limit lets through is seen where it matters.
 */
export class HoldingUpstream {
  inFlight = 0;
  maxInFlight = 0;
  arrived = 0;
  private held: (() => void)[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  private holding = true;

  readonly handler: UpstreamHandler = (_request: RecordedRequest, response: ServerResponse) => {
    this.arrived += 1;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    response.on('close', () => {
      this.inFlight -= 1;
    });
    const answer = () => {
      const body = chatCompletionBody('held answer');
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    };
    if (!this.holding) return answer();
    this.held.push(answer);
    this.wake();
  };

  /** Resolves once `count` calls are held. */
  holdingAtLeast(count: number): Promise<void> {
    if (this.held.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  get holdingNow(): number {
    return this.held.length;
  }

  /** Answers every held call, and the later ones at once. */
  releaseAll(): void {
    this.holding = false;
    const held = this.held;
    this.held = [];
    for (const answer of held) answer();
  }

  private wake(): void {
    const ready = this.waiters.filter((waiter) => this.held.length >= waiter.count);
    this.waiters = this.waiters.filter((waiter) => this.held.length < waiter.count);
    for (const waiter of ready) waiter.resolve();
  }
}

/** Waits until `condition` holds, checking every few milliseconds (the test's own timeout bounds it). */
export async function eventually(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
}

import { LogType } from '@modelgate/contract';
import { request } from 'undici';
import { seedChannel, seedToken, seedUser, type RelayTestEnv } from '../../../relay/testing/relay-fixtures.js';
import type { MockSuno } from './mock-suno.js';

/** Prices the Suno tests set (ModelPrice, USD a call); with QuotaPerUnit 500,000 and group ratio 1. */
export const SUNO_PRICES = { suno_music: 0.2, suno_lyrics: 0.02 };
export const MUSIC_QUOTA = 100_000;
export const LYRICS_QUOTA = 10_000;

export interface SunoAnswer {
  status: number;
  json: Record<string, unknown>;
}

/** One call of the gateway's Suno relay with a relay key. */
export async function sunoCall(gateway: string, apiKey: string | undefined, method: 'GET' | 'POST', path: string, body?: unknown): Promise<SunoAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  const response = await request(`${gateway}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.body.text();
  return { status: response.statusCode, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** A payer (own group) and a Suno channel serving it from the mock. */
export async function seedSunoPayer(env: RelayTestEnv, mock: MockSuno, options: { quota?: number; tokenQuota?: number; modelLimits?: string[] } = {}) {
  const user = await seedUser(env.context, { quota: options.quota ?? 1_000_000_000 });
  const token = await seedToken(env.context, user.id, {
    ...(options.tokenQuota === undefined ? {} : { remainQuota: options.tokenQuota, unlimited: false }),
    ...(options.modelLimits ? { modelLimits: options.modelLimits } : {}),
  });
  const channelId = await seedChannel(env.context, {
    type: 36,
    key: mock.key,
    baseUrl: mock.url,
    models: ['suno_music', 'suno_lyrics'],
    groups: [user.group],
    name: 'suno',
  });
  return { user, token, channelId, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
}

/** One round of the master's task poll (Suno round, then pending refunds). */
export const pollTasks = (env: RelayTestEnv): Promise<void> => env.tasks.poller.runOnce();

/** The refund logs (type 4 with other.task_refund) of a user. */
export async function refundLogs(env: RelayTestEnv, userId: number) {
  const rows = await env.context.db.kysely
    .selectFrom('logs')
    .selectAll()
    .where('user_id', '=', userId)
    .where('type', '=', LogType.System)
    .orderBy('id')
    .execute();
  return rows.filter((row) => String(row.other).includes('task_refund'));
}

/** The task row of an upstream task id. */
export const taskRow = (env: RelayTestEnv, taskId: string) =>
  env.context.db.kysely.selectFrom('tasks').selectAll().where('task_id', '=', taskId).executeTakeFirstOrThrow();

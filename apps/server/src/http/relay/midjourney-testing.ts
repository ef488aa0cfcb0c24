import { request } from 'undici';
import type { AppContext } from '../../app-context.js';
import { seedChannel, seedToken, seedUser, unique } from '../../relay/testing/relay-fixtures.js';
import type { MockMidjourney } from '../../providers/midjourney/testing/mock-midjourney.js';

/** Whole-app Midjourney test helpers: calls as a midjourney-proxy client makes them. */
export interface MjCall {
  status: number;
  json: Record<string, unknown> & { code?: number; description?: string; result?: unknown };
  text: string;
}

export async function mjCall(
  gateway: string,
  apiKey: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  header: 'mj' | 'bearer' = 'mj',
): Promise<MjCall> {
  const headers: Record<string, string> = header === 'mj' ? { 'mj-api-secret': apiKey } : { authorization: `Bearer ${apiKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await request(`${gateway}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.body.text();
  let json: MjCall['json'] = {};
  try {
    json = JSON.parse(text) as MjCall['json'];
  } catch {
    // not JSON: the test reads text
  }
  return { status: response.statusCode, json, text };
}

/** The scheduled task poll far away: the tests run their rounds themselves. */
export const QUIET = { TASK_POLL_INTERVAL: '3600' };

/** Every Midjourney price key, for channels that serve them all. */
export const ALL_MJ_MODELS = [
  'mj_imagine',
  'mj_variation',
  'mj_upscale',
  'mj_reroll',
  'mj_blend',
  'mj_describe',
  'mj_zoom',
  'mj_custom_zoom',
  'mj_shorten',
  'mj_modal',
  'mj_inpaint',
  'mj_high_variation',
  'mj_low_variation',
  'mj_pan',
  'swap_face',
  'mj_upload',
];

/** A user, their key and a Midjourney channel (type 2 unless given) on the mock. */
export async function seedMjPayer(
  context: AppContext,
  mock: MockMidjourney,
  options: { quota?: number; group?: string; type?: number; models?: string[] } = {},
) {
  const user = await seedUser(context, { quota: options.quota ?? 1_000_000_000, group: options.group });
  const token = await seedToken(context, user.id);
  const channelId = await seedChannel(context, {
    type: options.type ?? 2,
    key: mock.secret,
    name: unique('mj'),
    baseUrl: mock.url,
    models: options.models ?? ALL_MJ_MODELS,
    groups: [user.group],
  });
  return { user, token, channelId, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
}

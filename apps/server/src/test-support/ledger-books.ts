import type { Db } from '../db/index.js';
import { insertChannel, insertToken, insertUser } from './seed-rows.js';

/**
 * Seeding and checking the books of relay tests that run real server processes under load and
 * crash, kill or restart them (relay-crash.test.ts, cluster-haproxy.test.ts).
 */

export interface Seeded {
  users: Map<number, number>;
  tokens: Map<number, { start: number; limited: boolean }>;
  keys: string[];
  channels: number[];
}

/**
 * Ten users (some with balances that cover only part of the load), two tokens each (one limited),
 * two channels of `gpt-4o-mini` on `upstream`; `prefix` names the users.
 */
export async function seedBooks(db: Db, upstream: string, prefix = 'crash'): Promise<Seeded> {
  const seeded: Seeded = { users: new Map(), tokens: new Map(), keys: [], channels: [] };
  for (let index = 0; index < 2; index += 1) {
    seeded.channels.push(
      await insertChannel(db, { key: `sk-upstream-${index}`, name: `c${index}`, baseUrl: upstream, models: ['gpt-4o-mini'], groups: ['default'] }),
    );
  }
  for (let index = 0; index < 10; index += 1) {
    const quota = index % 2 === 0 ? 1_500 : 1_000_000_000;
    const userId = await insertUser(db, { username: `${prefix}${index}`, quota });
    seeded.users.set(userId, quota);
    for (const limited of [true, false]) {
      const start = limited ? 800 + index * 100 : 0;
      const token = await insertToken(db, userId, { remainQuota: start, unlimited: !limited });
      seeded.tokens.set(token.id, { start, limited });
      seeded.keys.push(token.apiKey);
    }
  }
  return seeded;
}

/**
 * The books as an operator checks them, per user, token and channel: balance + used_quota is what it
 * was at the start (limited tokens), the consume logs add up to used_quota, a channel's used_quota is
 * the sum of its logs. `problems` lists what disagrees; `leased` is the balance still held in leases
 * (counted in neither side: 0 once every node stopped cleanly or its leases were given back).
 */
export async function checkBooks(db: Db, seeded: Seeded) {
  const users = await db.kysely
    .selectFrom('users')
    .select(['id', 'quota', 'used_quota'])
    .where('id', 'in', [...seeded.users.keys()])
    .execute();
  const tokens = await db.kysely
    .selectFrom('tokens')
    .select(['id', 'remain_quota', 'used_quota'])
    .where('id', 'in', [...seeded.tokens.keys()])
    .execute();
  const channels = await db.kysely.selectFrom('channels').select(['id', 'used_quota']).where('id', 'in', seeded.channels).execute();
  const logs = await db.kysely.selectFrom('logs').select(['user_id', 'token_id', 'channel_id', 'quota']).where('type', '=', 2).execute();
  const sum = (pick: (log: (typeof logs)[number]) => boolean) => logs.filter(pick).reduce((total, log) => total + Number(log.quota), 0);
  const problems: string[] = [];
  for (const user of users) {
    const start = seeded.users.get(Number(user.id))!;
    if (Number(user.quota) + Number(user.used_quota) !== start) problems.push(`user ${user.id}: quota ${user.quota} + used ${user.used_quota} != ${start}`);
    if (sum((log) => Number(log.user_id) === Number(user.id)) !== Number(user.used_quota)) problems.push(`user ${user.id}: logs != used ${user.used_quota}`);
  }
  for (const token of tokens) {
    const { start, limited } = seeded.tokens.get(Number(token.id))!;
    if (limited && Number(token.remain_quota) + Number(token.used_quota) !== start)
      problems.push(`token ${token.id}: remain ${token.remain_quota} + used ${token.used_quota} != ${start}`);
    if (sum((log) => Number(log.token_id) === Number(token.id)) !== Number(token.used_quota))
      problems.push(`token ${token.id}: logs != used ${token.used_quota}`);
  }
  for (const channel of channels) {
    if (sum((log) => Number(log.channel_id) === Number(channel.id)) !== Number(channel.used_quota))
      problems.push(`channel ${channel.id}: logs != used ${channel.used_quota}`);
  }
  const leases = await db.kysely.selectFrom('quota_leases').select(['amount']).execute();
  return { problems, logs: logs.length, charged: sum(() => true), leased: leases.reduce((total, lease) => total + Number(lease.amount), 0) };
}

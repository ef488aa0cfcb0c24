import { ChannelStatus, TokenStatus } from '@modelgate/contract';
import { connectDb, type Db } from '../apps/server/src/db/index.js';
import { randomAlphanumeric, UserService } from '../apps/server/src/domain/users/user-service.js';

/**
 * Fills the gateway's SQLite file before the gateway starts, so its caches load everything at boot
 * and the bench measures the relay, not a cold cache. Goes through the app's own migrations so the
 * schema is whatever the server expects today.
 */

/** The model the relay runs call, served by the ten seeded channels. */
export const MAIN_MODEL = 'gpt-4o-mini';
/** The model of the channel-count runs, served by 10,000 more channels. */
export const MANY_CHANNELS_MODEL = 'gpt-4.1-mini';

export interface ChannelBatch {
  models: string[];
  count: number;
  baseUrl: string;
  namePrefix: string;
  /** The channel type (default 1, OpenAI; 14 is Anthropic Claude). */
  type?: number;
}

async function withDb<T>(sqlitePath: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await connectDb({ sqlitePath, sqlDsn: '', migrate: true });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Creates root (if missing) with a quota no bench run can exhaust and an unlimited token; gives the token's key. */
export function seedUserAndToken(sqlitePath: string): Promise<string> {
  return withDb(sqlitePath, async (db) => {
    const users = new UserService(db);
    await users.ensureRootUser();
    const root = await db.kysely.selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow();
    await db.kysely.updateTable('users').set({ quota: 1_000_000_000_000 }).where('id', '=', root.id).execute();
    const key = randomAlphanumeric(48);
    await db.kysely
      .insertInto('tokens')
      .values({
        user_id: root.id,
        key,
        status: TokenStatus.Enabled,
        name: 'bench',
        created_time: Math.floor(Date.now() / 1000),
        expired_time: -1,
        remain_quota: 0,
        unlimited_quota: 1,
        group: '',
      })
      .execute();
    return key;
  });
}

/** Adds `count` enabled channels (OpenAI unless `type` says otherwise) serving the given models, with their abilities in group default. */
export function seedChannels(sqlitePath: string, batch: ChannelBatch): Promise<void> {
  return withDb(sqlitePath, async (db) => {
    const now = Math.floor(Date.now() / 1000);
    const rowsPerInsert = 500;
    await db.kysely.transaction().execute(async (trx) => {
      for (let first = 0; first < batch.count; first += rowsPerInsert) {
        const size = Math.min(rowsPerInsert, batch.count - first);
        const channels = Array.from({ length: size }, (_, offset) => ({
          type: batch.type ?? 1,
          key: `sk-mock-upstream-${first + offset}`,
          status: ChannelStatus.Enabled,
          name: `${batch.namePrefix}-${first + offset}`,
          weight: 1,
          created_time: now,
          base_url: batch.baseUrl,
          models: batch.models.join(','),
          group: 'default',
          priority: 0,
          auto_ban: 0,
        }));
        const inserted = await trx.insertInto('channels').values(channels).returning('id').execute();
        await trx
          .insertInto('abilities')
          .values(
            inserted.flatMap(({ id }) =>
              batch.models.map((model) => ({ group: 'default', model, channel_id: id, enabled: 1, priority: 0, weight: 1, tag: '' })),
            ),
          )
          .execute();
      }
    });
  });
}

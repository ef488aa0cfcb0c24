import { LogType } from '@modelgate/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** A top-up log line (type 1), written in the same transaction as the credit it records. */
export async function writeTopUpLog(
  executor: Kysely<Database>,
  entry: { userId: number; username: string; quota: number; content: string },
): Promise<void> {
  await executor
    .insertInto('logs')
    .values({
      user_id: entry.userId,
      username: entry.username,
      created_at: Math.floor(Date.now() / 1000),
      type: LogType.TopUp,
      quota: entry.quota,
      content: entry.content,
    })
    .execute();
}

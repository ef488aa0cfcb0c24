import type { Selectable } from 'kysely';
import { insertReturningId, type Db } from '../../db/index.js';
import type { MidjourneysTable } from '../../db/schema.js';
import type { Paging } from '../../lib/paging.js';

export type MidjourneyRow = Selectable<MidjourneysTable>;

export interface NewMidjourney {
  userId: number;
  tokenId: number;
  code: number;
  action: string;
  mjId: string;
  prompt: string;
  description: string;
  submitTime: number;
  startTime?: number;
  finishTime?: number;
  imageUrl?: string;
  status: string;
  progress: string;
  failReason: string;
  channelId: number;
  quota: number;
  /** keyFingerprint of the key the task was submitted with. */
  keyHash?: string;
  properties?: string;
}

/** The fields a poll round or a callback brings in. */
export interface MidjourneyProgress {
  code: number;
  progress: string;
  prompt_en: string;
  state: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  fail_reason: string;
  properties: string;
  buttons: string;
}

/** The console's filter on /api/mj (new-api's TaskQueryParams); timestamps in ms, as submit_time. */
export interface MidjourneyFilter {
  userId?: number;
  channelId?: number;
  mjId?: string;
  startTimestamp?: number;
  endTimestamp?: number;
}

/** The `midjourneys` table, with new-api's columns. */
export class MidjourneyRepository {
  constructor(private readonly db: Db) {}

  insert(task: NewMidjourney): Promise<number> {
    return insertReturningId(this.db, 'midjourneys', {
      user_id: task.userId,
      token_id: task.tokenId,
      code: task.code,
      action: task.action,
      mj_id: task.mjId,
      prompt: task.prompt,
      prompt_en: '',
      description: task.description,
      state: '',
      submit_time: task.submitTime,
      start_time: task.startTime ?? 0,
      finish_time: task.finishTime ?? 0,
      image_url: task.imageUrl ?? '',
      status: task.status,
      progress: task.progress,
      fail_reason: task.failReason,
      channel_id: task.channelId,
      quota: task.quota,
      buttons: '',
      properties: task.properties ?? '',
      refunded: 0,
      key_hash: task.keyHash ?? '',
    });
  }

  /** A caller's own task by its upstream id (the first, should an id repeat). */
  byUserMjId(userId: number, mjId: string): Promise<MidjourneyRow | undefined> {
    return this.db.kysely
      .selectFrom('midjourneys')
      .selectAll()
      .where('user_id', '=', userId)
      .where('mj_id', '=', mjId)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  byMjId(mjId: string): Promise<MidjourneyRow | undefined> {
    return this.db.kysely.selectFrom('midjourneys').selectAll().where('mj_id', '=', mjId).orderBy('id').limit(1).executeTakeFirst();
  }

  byUserMjIds(userId: number, mjIds: readonly string[]): Promise<MidjourneyRow[]> {
    if (mjIds.length === 0) return Promise.resolve([]);
    return this.db.kysely
      .selectFrom('midjourneys')
      .selectAll()
      .where('user_id', '=', userId)
      .where('mj_id', 'in', [...mjIds])
      .orderBy('id')
      .execute();
  }

  /** Tasks still running: progress not 100% (new-api's GetAllUnFinishTasks). */
  unfinished(limit: number): Promise<MidjourneyRow[]> {
    return this.db.kysely.selectFrom('midjourneys').selectAll().where('progress', '!=', '100%').orderBy('id').limit(limit).execute();
  }

  /** Marks tasks that never got an upstream id as failed (new-api: nothing was charged for them). */
  async failWithoutId(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.kysely
      .updateTable('midjourneys')
      .set({ status: 'FAILURE', progress: '100%' })
      .where('id', 'in', [...ids])
      .execute();
  }

  /**
   * Writes a task's new state if its status is still `previousStatus` (new-api's
   * UpdateWithStatus): of two writers (a poll round and a callback), one wins.
   */
  async updateIfStatus(id: number, previousStatus: string, change: MidjourneyProgress): Promise<boolean> {
    const result = await this.db.kysely.updateTable('midjourneys').set(change).where('id', '=', id).where('status', '=', previousStatus).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async page(filter: MidjourneyFilter, paging: Paging): Promise<{ items: MidjourneyRow[]; total: number }> {
    let query = this.db.kysely.selectFrom('midjourneys');
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.channelId) query = query.where('channel_id', '=', filter.channelId);
    if (filter.mjId) query = query.where('mj_id', '=', filter.mjId);
    if (filter.startTimestamp) query = query.where('submit_time', '>=', filter.startTimestamp);
    if (filter.endTimestamp) query = query.where('submit_time', '<=', filter.endTimestamp);
    const [items, count] = await Promise.all([
      query.selectAll().orderBy('id', 'desc').limit(paging.pageSize).offset(paging.offset).execute(),
      query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst(),
    ]);
    return { items, total: Number(count?.total ?? 0) };
  }
}

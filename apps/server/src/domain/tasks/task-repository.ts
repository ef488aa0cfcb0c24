import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { insertReturningId } from '../../db/index.js';
import type { TasksTable } from '../../db/schema.js';
import type { Paging } from '../../lib/paging.js';

export type TaskRow = Selectable<TasksTable>;

/** A task as it is created on a successful submit (new-api's InitTask: NOT_START, 0%). */
export interface NewTask {
  taskId: string;
  platform: string;
  action: string;
  userId: number;
  tokenId: number;
  group: string;
  channelId: number;
  quota: number;
  properties?: string;
  data?: string;
  /** keyFingerprint of the key the task was submitted with. */
  keyHash?: string;
}

/** What a poll learned about a task; only the named columns change. */
export interface TaskChange {
  status: string;
  progress: string;
  failReason: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  data: string;
}

export interface TaskListFilter {
  /** Only this user's tasks (the self route). */
  userId?: number;
  channelId: number;
  taskId: string;
  platform: string;
  status: string;
  action: string;
  startTimestamp: number;
  endTimestamp: number;
}

/** The `data` and `properties` columns as JSON: '' is null, text that is not JSON stays text. */
export function taskDataOf(data: string): unknown {
  if (data === '') return null;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}

const FINISHED = ['SUCCESS', 'FAILURE'];
const now = () => Math.floor(Date.now() / 1000);

/** The `tasks` table (new-api's model/task.go): async tasks such as Suno's songs and lyrics. */
export class TaskRepository {
  constructor(private readonly db: Db) {}

  insert(task: NewTask): Promise<number> {
    const at = now();
    return insertReturningId(this.db, 'tasks', {
      created_at: at,
      updated_at: at,
      task_id: task.taskId,
      platform: task.platform,
      user_id: task.userId,
      token_id: task.tokenId,
      group: task.group,
      channel_id: task.channelId,
      quota: task.quota,
      action: task.action,
      status: 'NOT_START',
      progress: '0%',
      submit_time: at,
      properties: task.properties ?? '',
      data: task.data ?? '',
      key_hash: task.keyHash ?? '',
    });
  }

  /** A user's own task by the upstream's id (new-api's GetByTaskId). */
  byTaskId(userId: number, taskId: string): Promise<TaskRow | undefined> {
    return this.db.kysely.selectFrom('tasks').selectAll().where('user_id', '=', userId).where('task_id', '=', taskId).orderBy('id', 'desc').executeTakeFirst();
  }

  /** A user's own tasks among these upstream ids (new-api's GetByTaskIds). */
  async byTaskIds(userId: number, taskIds: readonly string[]): Promise<TaskRow[]> {
    if (taskIds.length === 0) return [];
    return this.db.kysely
      .selectFrom('tasks')
      .selectAll()
      .where('user_id', '=', userId)
      .where('task_id', 'in', [...taskIds])
      .orderBy('id')
      .execute();
  }

  /** Unfinished tasks of a platform, oldest first (new-api's GetAllUnFinishSyncTasks: at most 500 a round). */
  unfinished(platform: string, limit = 500): Promise<TaskRow[]> {
    return this.db.kysely
      .selectFrom('tasks')
      .selectAll()
      .where('platform', '=', platform)
      .where('status', 'not in', FINISHED)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Records a poll's news, unless the task finished meanwhile (another poller, an earlier round):
   * a finished task never changes again, so a failure is recorded, and refunded, once.
   */
  async update(id: number, change: TaskChange): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('tasks')
      .set({
        status: change.status,
        progress: change.progress,
        fail_reason: change.failReason,
        submit_time: change.submitTime,
        start_time: change.startTime,
        finish_time: change.finishTime,
        data: change.data,
        updated_at: now(),
      })
      .where('id', '=', id)
      .where('status', 'not in', FINISHED)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** One page of the console's list, newest first, with the total (and usernames for admins). */
  async page(filter: TaskListFilter, paging: Paging): Promise<{ items: (TaskRow & { username: string | null })[]; total: number }> {
    let query = this.db.kysely.selectFrom('tasks');
    if (filter.userId !== undefined) query = query.where('tasks.user_id', '=', filter.userId);
    if (filter.channelId > 0) query = query.where('tasks.channel_id', '=', filter.channelId);
    if (filter.taskId !== '') query = query.where('tasks.task_id', '=', filter.taskId);
    if (filter.platform !== '') query = query.where('tasks.platform', '=', filter.platform);
    if (filter.status !== '') query = query.where('tasks.status', '=', filter.status);
    if (filter.action !== '') query = query.where('tasks.action', '=', filter.action);
    if (filter.startTimestamp > 0) query = query.where('tasks.submit_time', '>=', filter.startTimestamp);
    if (filter.endTimestamp > 0) query = query.where('tasks.submit_time', '<=', filter.endTimestamp);
    const [items, count] = await Promise.all([
      query
        .leftJoin('users', 'users.id', 'tasks.user_id')
        .selectAll('tasks')
        .select('users.username')
        .orderBy('tasks.id', 'desc')
        .limit(paging.pageSize)
        .offset(paging.offset)
        .execute(),
      query.select((eb) => eb.fn.countAll<number | string | bigint>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.total) };
  }
}

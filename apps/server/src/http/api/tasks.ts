import type { AsyncTask } from '@modelgate/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { taskDataOf, type TaskListFilter, type TaskRow } from '../../domain/tasks/task-repository.js';
import { pageOf, queryInteger, queryText, readPaging, type ListQuery } from '../../lib/paging.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import type { TaskRuntime } from '../../relay/tasks/task-runtime.js';
import { ok } from '../envelope.js';

type Query = ListQuery;

function readFilter(query: unknown, ownerId?: number): TaskListFilter {
  const params = (query ?? {}) as Query;
  return {
    userId: ownerId,
    // A user's own list has no channel filter (spec 02 §2: admins filter by channel).
    channelId: ownerId === undefined ? queryInteger(params, 'channel_id') : 0,
    taskId: queryText(params, 'task_id'),
    platform: queryText(params, 'platform'),
    status: queryText(params, 'status'),
    action: queryText(params, 'action'),
    startTimestamp: queryInteger(params, 'start_timestamp'),
    endTimestamp: queryInteger(params, 'end_timestamp'),
  };
}

/** A task row as new-api's console reads it (model/task.go Task; data as JSON; who paid only for admins). */
function toWireTask(row: TaskRow & { username: string | null }, admin: boolean): AsyncTask {
  return {
    id: Number(row.id),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    task_id: row.task_id,
    platform: row.platform,
    user_id: Number(row.user_id),
    ...(admin ? { username: row.username ?? '' } : {}),
    group: row.group,
    channel_id: Number(row.channel_id),
    quota: Number(row.quota),
    action: row.action,
    status: row.status,
    fail_reason: row.fail_reason,
    submit_time: Number(row.submit_time),
    start_time: Number(row.start_time),
    finish_time: Number(row.finish_time),
    progress: row.progress,
    properties: taskDataOf(row.properties),
    data: taskDataOf(row.data),
  };
}

/**
 * The async task lists (spec 02 §7): GET /api/task/ for admins over every task (channel_id
 * filter), GET /api/task/self for the signed-in user's own; both with p, page_size, task_id,
 * start_timestamp, end_timestamp (on submit_time), and new-api's platform, status, action. Paged
 * as the log lists: {items, total, page, page_size}, newest first.
 */
export function taskRoutes(app: FastifyInstance, context: AppContext, runtime: TaskRuntime): void {
  const repository = context.users.repository;
  const admin = { preHandler: authGuard(repository, 'admin') };
  const signedIn = { preHandler: authGuard(repository, 'user') };
  const tasks = runtime.repository;
  const ownId = (request: FastifyRequest) => Number(currentUser(request).id);

  const page = async (query: unknown, ownerId?: number) => {
    const paging = readPaging(query);
    const { items, total } = await tasks.page(readFilter(query, ownerId), paging);
    return ok(
      pageOf(
        items.map((row) => toWireTask(row, ownerId === undefined)),
        total,
        paging,
      ),
    );
  };
  app.get('/api/task/', admin, async (request) => page(request.query));
  app.get('/api/task/self', signedIn, async (request) => page(request.query, ownId(request)));
}

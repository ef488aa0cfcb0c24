import type { DrawingTask } from '@modelgate/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { MidjourneyFilter, MidjourneyRow } from '../../domain/tasks/midjourney-repository.js';
import { imageUrlOf, NOTIFY_HOOK_PROPERTY, propertiesOf } from '../../domain/tasks/midjourney-task-state.js';
import { pageOf, queryInteger, queryText, readPaging, type ListQuery } from '../../lib/paging.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import type { TaskRuntime } from '../../relay/tasks/task-runtime.js';
import { ok } from '../envelope.js';

type Query = ListQuery;

/** The console's filter; timestamps in milliseconds, as submit_time and new-api's console send them. */
function readFilter(query: unknown, ownerId?: number): MidjourneyFilter {
  const params = (query ?? {}) as Query;
  return {
    userId: ownerId,
    channelId: ownerId === undefined ? queryInteger(params, 'channel_id') : 0,
    mjId: queryText(params, 'mj_id'),
    startTimestamp: queryInteger(params, 'start_timestamp'),
    endTimestamp: queryInteger(params, 'end_timestamp'),
  };
}

/** A row as new-api's model.Midjourney serialises it. */
function wireRow(row: MidjourneyRow, imageUrl: string, admin: boolean): DrawingTask {
  const properties = propertiesOf(row);
  delete properties[NOTIFY_HOOK_PROPERTY];
  return {
    id: Number(row.id),
    code: Number(row.code),
    user_id: Number(row.user_id),
    action: row.action,
    mj_id: row.mj_id,
    prompt: row.prompt,
    prompt_en: row.prompt_en,
    description: row.description,
    state: row.state,
    submit_time: Number(row.submit_time),
    start_time: Number(row.start_time),
    finish_time: Number(row.finish_time),
    image_url: imageUrl,
    video_url: row.video_url,
    video_urls: row.video_urls,
    status: row.status,
    progress: row.progress,
    fail_reason: row.fail_reason,
    // Which channel served a task is the administrators' business.
    channel_id: admin ? Number(row.channel_id) : 0,
    quota: Number(row.quota),
    buttons: row.buttons,
    properties: Object.keys(properties).length > 0 ? JSON.stringify(properties) : '',
  };
}

/** Drawing tasks (spec 02 §7): GET /api/mj/ for administrators (every user's), /api/mj/self for one's own. */
export function midjourneyApiRoutes(app: FastifyInstance, context: AppContext, tasks: TaskRuntime): void {
  const users = context.users.repository;
  const admin = { preHandler: authGuard(users, 'admin') };
  const signedIn = { preHandler: authGuard(users, 'user') };
  const { repository } = tasks.midjourney;
  const ownId = (request: FastifyRequest) => Number(currentUser(request).id);

  const page = async (query: unknown, ownerId?: number) => {
    const paging = readPaging(query);
    const { items, total } = await repository.page(readFilter(query, ownerId), paging);
    const forward = context.options.bool('MjForwardUrlEnabled');
    const server = context.options.string('ServerAddress').replace(/\/+$/, '');
    const imageOf = (row: MidjourneyRow) => imageUrlOf(row, forward, server, context.config.sessionSecret);
    return ok(
      pageOf(
        items.map((row) => wireRow(row, imageOf(row), ownerId === undefined)),
        total,
        paging,
      ),
    );
  };
  app.get('/api/mj/', admin, async (request) => page(request.query));
  app.get('/api/mj/self', signedIn, async (request) => page(request.query, ownId(request)));
}

import type { AsyncTask, PageData } from '@modelgate/contract';
import { api } from '../../lib/api-client';
import type { TaskFilters } from './task-rules';

/**
 * A row of GET /api/task/ (admin) or /api/task/self: new-api's tasks table. Its times are Unix
 * seconds; `data` is what the platform answered (Suno clips or lyrics, see suno-result.ts).
 */
export type { AsyncTask };

export interface TaskListParams extends TaskFilters {
  page: number;
  pageSize: number;
  admin: boolean;
}

export async function fetchTasks(params: TaskListParams): Promise<PageData<AsyncTask>> {
  const { data } = await api.get<PageData<AsyncTask>>(params.admin ? '/api/task/' : '/api/task/self', {
    query: {
      p: params.page,
      page_size: params.pageSize,
      channel_id: params.admin ? params.channel || undefined : undefined,
      task_id: params.taskId || undefined,
      start_timestamp: params.start || undefined,
      end_timestamp: params.end || undefined,
    },
  });
  return { ...data, items: data.items ?? [] };
}

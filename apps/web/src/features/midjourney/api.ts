import type { DrawingTask, PageData } from '@modelgate/contract';
import { api } from '../../lib/api-client';
import type { TaskFilters } from '../tasks/task-rules';

/** A row of GET /api/mj/ (admin) or /api/mj/self: times in Unix milliseconds, progress text such as "45%". */
export type { DrawingTask };

export interface DrawingListParams extends TaskFilters {
  page: number;
  pageSize: number;
  admin: boolean;
}

/** new-api's drawing screen sends its range in milliseconds (Date.parse), matching submit_time. */
export async function fetchDrawings(params: DrawingListParams): Promise<PageData<DrawingTask>> {
  const { data } = await api.get<PageData<DrawingTask>>(params.admin ? '/api/mj/' : '/api/mj/self', {
    query: {
      p: params.page,
      page_size: params.pageSize,
      channel_id: params.admin ? params.channel || undefined : undefined,
      mj_id: params.taskId || undefined,
      start_timestamp: params.start ? params.start * 1000 : undefined,
      end_timestamp: params.end ? params.end * 1000 : undefined,
    },
  });
  return { ...data, items: data.items ?? [] };
}

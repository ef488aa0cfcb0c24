import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { fetchTasks, type TaskListParams } from './api';

export const taskKeys = {
  all: ['async-tasks'] as const,
  list: (params: TaskListParams) => [...taskKeys.all, 'list', params] as const,
};

export function useTaskList(params: TaskListParams) {
  return useQuery({ queryKey: taskKeys.list(params), queryFn: () => fetchTasks(params), placeholderData: keepPreviousData });
}

import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { fetchLogs, fetchLogStat, type LogFilters, type LogListParams } from './api';

export const logKeys = {
  all: ['logs'] as const,
  list: (params: LogListParams) => [...logKeys.all, 'list', params] as const,
  stat: (filters: LogFilters, admin: boolean) => [...logKeys.all, 'stat', admin, filters] as const,
};

export function useLogList(params: LogListParams) {
  return useQuery({ queryKey: logKeys.list(params), queryFn: () => fetchLogs(params), placeholderData: keepPreviousData });
}

export function useLogStat(filters: LogFilters, admin: boolean) {
  return useQuery({ queryKey: logKeys.stat(filters, admin), queryFn: () => fetchLogStat(filters, admin), placeholderData: keepPreviousData });
}

export function useRefreshLogs(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(() => client.invalidateQueries({ queryKey: logKeys.all }), [client]);
}

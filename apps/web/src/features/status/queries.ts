import { useQuery } from '@tanstack/react-query';
import { DEFAULT_SYSTEM_NAME } from '../../lib/project';
import { readJson, StorageKey } from '../../lib/storage';
import { fetchStatus } from './api';
import type { StatusFlag, SystemStatus } from './types';

export const statusKeys = { all: ['status'] as const };

/**
 * The last known status seeds the query so the header, footer and login buttons render at once;
 * it is refetched in the background on every load.
 */
export function useStatus(): SystemStatus {
  const query = useQuery({
    queryKey: statusKeys.all,
    queryFn: fetchStatus,
    initialData: () => readJson<SystemStatus>(StorageKey.status) ?? undefined,
    initialDataUpdatedAt: 0,
    staleTime: 60_000,
    retry: 1,
  });
  return query.data ?? {};
}

export function statusFlagOn(status: SystemStatus, flag: StatusFlag): boolean {
  return status[flag] === true;
}

export function useSystemName(): string {
  return useStatus().system_name || DEFAULT_SYSTEM_NAME;
}

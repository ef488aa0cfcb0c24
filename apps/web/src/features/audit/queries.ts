import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { fetchAuditLog, type AuditListParams } from './api';

export const auditKeys = {
  all: ['audit'] as const,
  list: (params: AuditListParams) => [...auditKeys.all, 'list', params] as const,
};

export function useAuditLog(params: AuditListParams) {
  return useQuery({ queryKey: auditKeys.list(params), queryFn: () => fetchAuditLog(params), placeholderData: keepPreviousData });
}

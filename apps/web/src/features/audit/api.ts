import type { AuditEntry, PageData } from '@modelgate/contract';
import { api } from '../../lib/api-client';

export type { AuditEntry };

/** The filters of GET /api/audit/; '' and 0 mean "no filter". */
export interface AuditFilters {
  action: string;
  actor: string;
  targetType: string;
  targetId: string;
  ip: string;
  /** Unix seconds, 0 unset. */
  start: number;
  end: number;
}

export interface AuditListParams extends AuditFilters {
  page: number;
  pageSize: number;
}

export async function fetchAuditLog(params: AuditListParams): Promise<PageData<AuditEntry>> {
  const { data } = await api.get<PageData<AuditEntry>>('/api/audit/', {
    query: {
      p: params.page,
      page_size: params.pageSize,
      action: params.action || undefined,
      actor: params.actor || undefined,
      target_type: params.targetType || undefined,
      target_id: params.targetId || undefined,
      ip: params.ip || undefined,
      start_timestamp: params.start || undefined,
      end_timestamp: params.end || undefined,
    },
  });
  return { ...data, items: data.items ?? [] };
}

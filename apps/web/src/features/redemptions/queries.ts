import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createRedemptions, deleteRedemption, getRedemption, listRedemptions, setRedemptionStatus, updateRedemption, type RedemptionListParams } from './api';

export const redemptionKeys = {
  all: ['redemptions'] as const,
  list: (params: RedemptionListParams) => [...redemptionKeys.all, 'list', params] as const,
  detail: (id: number) => [...redemptionKeys.all, 'detail', id] as const,
};

/** The current page; the previous page stays on screen while the next one loads. */
export function useRedemptionList(params: RedemptionListParams) {
  return useQuery({
    queryKey: redemptionKeys.list(params),
    queryFn: () => listRedemptions(params),
    placeholderData: keepPreviousData,
  });
}

export function useRedemption(id: number | null) {
  return useQuery({
    queryKey: redemptionKeys.detail(id ?? 0),
    queryFn: () => getRedemption(id ?? 0),
    enabled: id !== null,
    staleTime: 0,
  });
}

/** Every change refreshes all cached pages: a status flip or a delete can move rows across pages. */
function useInvalidateRedemptions() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: redemptionKeys.all });
}

export function useCreateRedemptions() {
  const invalidate = useInvalidateRedemptions();
  return useMutation({ mutationFn: createRedemptions, onSuccess: invalidate });
}

export function useUpdateRedemption() {
  const invalidate = useInvalidateRedemptions();
  return useMutation({ mutationFn: updateRedemption, onSuccess: invalidate });
}

export function useSetRedemptionStatus() {
  const invalidate = useInvalidateRedemptions();
  return useMutation({
    mutationFn: ({ id, status }: { id: number; status: number }) => setRedemptionStatus(id, status),
    onSuccess: invalidate,
  });
}

export function useDeleteRedemption() {
  const invalidate = useInvalidateRedemptions();
  return useMutation({ mutationFn: deleteRedemption, onSuccess: invalidate });
}

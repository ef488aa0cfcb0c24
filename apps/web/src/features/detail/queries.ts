import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { fetchQuotaData, type QuotaDataQuery } from './api';

export const detailKeys = {
  all: ['quota-data'] as const,
  range: (query: QuotaDataQuery) => [...detailKeys.all, query] as const,
};

/** The rows of one range; the previous range's charts stay up while the next one loads. Off while the range is invalid. */
export function useQuotaData(query: QuotaDataQuery, enabled: boolean) {
  return useQuery({
    queryKey: detailKeys.range(query),
    queryFn: () => fetchQuotaData(query),
    enabled,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

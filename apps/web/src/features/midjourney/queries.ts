import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { fetchDrawings, type DrawingListParams } from './api';

export const drawingKeys = {
  all: ['drawings'] as const,
  list: (params: DrawingListParams) => [...drawingKeys.all, 'list', params] as const,
};

export function useDrawingList(params: DrawingListParams) {
  return useQuery({ queryKey: drawingKeys.list(params), queryFn: () => fetchDrawings(params), placeholderData: keepPreviousData });
}

import { useQuery } from '@tanstack/react-query';
import { fetchAbout } from './api';

export const aboutKeys = { content: ['about', 'content'] as const };

export function useAbout() {
  return useQuery({ queryKey: aboutKeys.content, queryFn: fetchAbout, staleTime: 5 * 60_000, retry: false });
}

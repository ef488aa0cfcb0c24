import { useQuery } from '@tanstack/react-query';
import { fetchHomePageContent, fetchNotice } from './api';

export const homeKeys = {
  content: ['home', 'content'] as const,
  notice: ['home', 'notice'] as const,
};

export function useHomePageContent() {
  return useQuery({ queryKey: homeKeys.content, queryFn: fetchHomePageContent, staleTime: 5 * 60_000, retry: false });
}

export function useNotice() {
  return useQuery({ queryKey: homeKeys.notice, queryFn: fetchNotice, staleTime: 5 * 60_000, retry: false });
}

import { z } from 'zod';

/** `?p=` and `?page_size=` of every list (lib/paging.ts): p counts from 1. */
export const pagingFields = {
  p: z.string().regex(/^\d+$/).optional().describe('Page number, from 1.'),
  page_size: z.string().regex(/^\d+$/).optional().describe('Rows per page (clamped to the maximum).'),
};
export const pagingQuery = z.object(pagingFields);

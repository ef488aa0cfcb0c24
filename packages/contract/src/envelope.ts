import { z } from 'zod';

/** Every /api answer: {success, message, data}. */
export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

export const envelopeSchema = <T extends z.ZodType>(data: T) => z.object({ success: z.boolean(), message: z.string(), data: data.optional() });

/** Paged list answer of the console API (first page is p=0 on the wire for users, 1-based elsewhere is tolerated). */
export interface PageData<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
}

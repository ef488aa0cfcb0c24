import { z } from 'zod';

/** One option of GET /api/option/; secrets are never listed (write-only). */
export const optionEntrySchema = z.strictObject({ key: z.string(), value: z.string() });
export type OptionEntry = z.output<typeof optionEntrySchema>;

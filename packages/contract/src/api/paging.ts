import { z } from 'zod';

/** One page of a console list ({@link PageData} in envelope.ts): the rows and where they sit. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int().describe('The page answered, from 1.'),
    page_size: z.number().int(),
  });

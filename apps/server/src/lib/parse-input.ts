import type { z } from 'zod';
import { badRequest } from '../errors/app-error.js';

/** Parses console input with zod; the first problem becomes a 400 with a readable message. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw badRequest(`无效的参数，${field}${issue.message}`, 'request:invalid_parameter');
}

import { z } from 'zod';

/**
 * Rate limits (issue 27): the four figures a token, a user, a group or a model may carry. 0 means
 * no limit. rpm: requests a minute; tpm: tokens (prompt + completion) a minute, counted when a
 * call settles; rpd: requests a day; concurrency: calls in flight at once.
 */
export const RATE_LIMIT_KINDS = ['rpm', 'tpm', 'rpd', 'concurrency'] as const;
export type RateLimitKind = (typeof RATE_LIMIT_KINDS)[number];

/** The largest figure: what a 32-bit integer column holds. */
export const RATE_LIMIT_MAX = 2_147_483_647;

/** The columns of tokens and users, and their names on the wire (`/api/token/`, `/api/user/`). */
export const RATE_LIMIT_FIELDS = {
  rpm: 'rpm_limit',
  tpm: 'tpm_limit',
  rpd: 'rpd_limit',
  concurrency: 'concurrency_limit',
} as const satisfies Record<RateLimitKind, string>;

const figure = z.number().int().min(0).describe('0: no limit.');

/** The four figures as a token or a user answers them. */
export const wireRateLimitsSchema = z.strictObject({
  rpm_limit: figure.describe('Requests a minute; 0: no limit.'),
  tpm_limit: figure.describe('Tokens (prompt + completion) a minute, counted as calls settle; 0: no limit.'),
  rpd_limit: figure.describe('Requests a day; 0: no limit.'),
  concurrency_limit: figure.describe('Calls in flight at once; 0: no limit.'),
});
export type WireRateLimits = z.output<typeof wireRateLimitsSchema>;

const optionFigure = z
  .number({ error: '必须是整数 (must be a whole number)' })
  .int('必须是整数 (must be a whole number)')
  .min(0, '不能为负数 (must not be negative)')
  .max(RATE_LIMIT_MAX, `不能大于 ${RATE_LIMIT_MAX}`);

/** One entry of GroupRateLimits or ModelRateLimits: any of the four figures, the others unlimited. */
export const rateLimitFiguresSchema = z.strictObject({
  rpm: optionFigure.optional(),
  tpm: optionFigure.optional(),
  rpd: optionFigure.optional(),
  concurrency: optionFigure.optional(),
});
export type RateLimitFigures = z.output<typeof rateLimitFiguresSchema>;

/**
 * The options GroupRateLimits (group → figures, for each user's calls made in that group) and
 * ModelRateLimits (model → figures, for each user's calls of that model).
 */
export const rateLimitMapSchema = z.record(z.string().min(1, '名称不能为空 (a name must not be empty)'), rateLimitFiguresSchema);
export type RateLimitMap = z.output<typeof rateLimitMapSchema>;

/**
 * new-api's ModelRequestRateLimitGroup: group → [total count, success count] replacing
 * ModelRequestRateLimitCount and ModelRequestRateLimitSuccessCount for that group's calls. As in
 * new-api (setting/rate_limit.go) the total may be 0 (no limit), the success count at least 1.
 */
export const modelRequestRateLimitGroupSchema = z.record(
  z.string(),
  z.tuple([
    z.number().int('必须是整数 (must be a whole number)').min(0, '总请求数不能为负数 (the total count must not be negative)').max(RATE_LIMIT_MAX),
    z.number().int('必须是整数 (must be a whole number)').min(1, '成功请求数至少为 1 (the success count must be at least 1)').max(RATE_LIMIT_MAX),
  ]),
);
export type ModelRequestRateLimitGroup = z.output<typeof modelRequestRateLimitGroupSchema>;

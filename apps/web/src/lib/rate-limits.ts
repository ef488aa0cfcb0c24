import { RATE_LIMIT_FIELDS, RATE_LIMIT_KINDS, RATE_LIMIT_MAX, type RateLimitKind, type WireRateLimits } from '@modelgate/contract';

/**
 * The rate-limit figures of a token or a user as the console edits and shows them (the server's
 * relay/rate-limits/): 0 on the wire means no limit, an empty field in the forms.
 */

/** The four form fields; undefined (an empty field) is no limit. */
export type RateLimitFormValues = { [Field in keyof WireRateLimits]?: number | undefined };

export function rateLimitFormValues(figures: WireRateLimits): RateLimitFormValues {
  const values: RateLimitFormValues = {};
  for (const kind of RATE_LIMIT_KINDS) {
    const field = RATE_LIMIT_FIELDS[kind];
    values[field] = figures[field] > 0 ? figures[field] : undefined;
  }
  return values;
}

/** What the API takes: every field, 0 for no limit. */
export function rateLimitInput(values: RateLimitFormValues): WireRateLimits {
  return {
    rpm_limit: values.rpm_limit ?? 0,
    tpm_limit: values.tpm_limit ?? 0,
    rpd_limit: values.rpd_limit ?? 0,
    concurrency_limit: values.concurrency_limit ?? 0,
  };
}

/** Whether the server takes a field's value: empty, or a whole number from 0 to RATE_LIMIT_MAX. */
export const isRateLimitFigure = (value: unknown): boolean =>
  value === undefined || value === null || value === '' || (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= RATE_LIMIT_MAX);

/** The limits set, in the order the forms list them. */
export function activeRateLimits(figures: WireRateLimits): { kind: RateLimitKind; value: number }[] {
  return RATE_LIMIT_KINDS.filter((kind) => figures[RATE_LIMIT_FIELDS[kind]] > 0).map((kind) => ({ kind, value: figures[RATE_LIMIT_FIELDS[kind]] }));
}

/** 60 → "60", 100000 → "100K", 1500000 → "1.5M": figures short enough for a tag. */
export function compactFigure(value: number): string {
  const scaled = (divisor: number, unit: string) => `${Number((value / divisor).toFixed(1))}${unit}`;
  if (value >= 1_000_000_000) return scaled(1_000_000_000, 'B');
  if (value >= 1_000_000) return scaled(1_000_000, 'M');
  if (value >= 10_000) return scaled(1_000, 'K');
  return String(value);
}

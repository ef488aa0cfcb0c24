/**
 * The rate-limit figures of a token, a user, a group or a model, as the relay reads them
 * (relay/rate-limits/). 0 is no limit; an owner without any limit carries none of these at all,
 * so the relay's check costs it one field read.
 */
export interface RateFigures {
  /** Requests a minute. */
  rpm: number;
  /** Tokens (prompt + completion) a minute, counted as calls settle. */
  tpm: number;
  /** Requests a day. */
  rpd: number;
  /** Calls in flight at once. */
  concurrency: number;
}

interface RateLimitColumns {
  rpm_limit: number | string | bigint;
  tpm_limit: number | string | bigint;
  rpd_limit: number | string | bigint;
  concurrency_limit: number | string | bigint;
}

/** A row's figures, or undefined when it has no limit (rows from before migration 010 read 0). */
export function rateFiguresOf(row: Partial<RateLimitColumns>): RateFigures | undefined {
  return rateFigures(Number(row.rpm_limit ?? 0), Number(row.tpm_limit ?? 0), Number(row.rpd_limit ?? 0), Number(row.concurrency_limit ?? 0));
}

/** The figures, or undefined when none limits anything; negative or fractional values are read as their floor, at least 0. */
export function rateFigures(rpm: number, tpm: number, rpd: number, concurrency: number): RateFigures | undefined {
  const figures = { rpm: whole(rpm), tpm: whole(tpm), rpd: whole(rpd), concurrency: whole(concurrency) };
  return figures.rpm > 0 || figures.tpm > 0 || figures.rpd > 0 || figures.concurrency > 0 ? figures : undefined;
}

const whole = (value: number): number => (Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

/**
 * A sliding window approximated by two fixed ones (Cloudflare's counter): the count of the
 * current fixed window plus the previous window's count weighted by how much of it the sliding
 * window still covers, rounded up, so a slot frees only once a whole earlier event has aged out
 * (under the even spread the approximation assumes). O(1) per call and two numbers per counter,
 * whatever the figure; the price is that a burst at the very end of a window ages out evenly
 * over the next one instead of all at once.
 */

/** The fixed window `now` falls in. */
export const bucketOf = (now: number, windowMs: number): number => Math.floor(now / windowMs);

/** How much of the previous fixed window the sliding one ending at `now` still covers (1 at a window's start, towards 0 at its end). */
export const weightOf = (now: number, windowMs: number): number => 1 - (now - bucketOf(now, windowMs) * windowMs) / windowMs;

/** The sliding window's count. */
export const usedOf = (current: number, previous: number, weight: number): number => Math.ceil(previous * weight) + current;

/**
 * Milliseconds from `now` until the count falls below `limit` if nothing more is counted: the
 * wait a refused call is told (Retry-After). 0 when it already is below.
 */
export function waitMs(limit: number, current: number, previous: number, now: number, windowMs: number): number {
  const start = bucketOf(now, windowMs) * windowMs;
  if (usedOf(current, previous, weightOf(now, windowMs)) < limit) return 0;
  if (current >= limit) {
    // The current window must first become the previous one, then age until ceil(current × w) ≤ limit − 1.
    return start + windowMs + windowMs - Math.floor((windowMs * (limit - 1)) / current) - now;
  }
  // ceil(previous × w) ≤ limit − current − 1 once w ≤ (limit − current − 1) / previous.
  return Math.max(0, start + windowMs - Math.floor((windowMs * (limit - current - 1)) / previous) - now);
}

/** Milliseconds from `now` until the window holds nothing (OpenAI's x-ratelimit-reset-*: back to its initial state). */
export function resetMs(current: number, previous: number, now: number, windowMs: number): number {
  const end = (bucketOf(now, windowMs) + 1) * windowMs;
  if (current > 0) return end + windowMs - now;
  return previous > 0 ? end - now : 0;
}

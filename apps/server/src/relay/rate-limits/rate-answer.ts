import type { ServerResponse } from 'node:http';
import { AppError } from '../../errors/app-error.js';
import type { Outcome } from './counter-store.js';
import { isRequestKind, type LimitCheck } from './limit-checks.js';
import { resetMs, usedOf, waitMs, weightOf } from './sliding-window.js';

/**
 * What a call is told about its limits: the 429 of a refused call, in the caller's protocol
 * (rendered by errors/render.ts: OpenAI's and Responses' error object, Anthropic's
 * rate_limit_error, Gemini's RESOURCE_EXHAUSTED), and the headers OpenAI sends and its clients read:
 *   Retry-After (whole seconds, at least 1) and retry-after-ms (OpenAI's SDKs prefer it);
 *   x-ratelimit-limit-requests / -remaining-requests / -reset-requests for the tightest request
 *   limit (rpm, rpd, new-api's counts), x-ratelimit-*-tokens for the tightest tpm.
 * The reset is OpenAI's: the time until that window holds nothing, as "1s", "6m0s", "20ms".
 */

/** A gate's wait is unknown (it frees when a call in flight ends): clients are told to retry after a second. */
const GATE_RETRY_MS = 1000;

/** The wait before a refused check would pass, in ms; 0 for a check that passes. */
function checkWait(check: LimitCheck, current: number, previous: number, now: number): number {
  if (check.kind === 'concurrency') return current >= check.limit ? GATE_RETRY_MS : 0;
  return waitMs(check.limit, current, previous, now, check.windowMs);
}

/** The refusal of a call some check turned away: its headers set, the error to throw. */
export function refusal(response: ServerResponse, checks: readonly LimitCheck[], outcome: Outcome, now: number): AppError {
  // Every check at its limit refuses; the longest wait is the one the client must sit out.
  let refusing = -1;
  let longest = -1;
  for (let index = 0; index < checks.length; index += 1) {
    const wait = checkWait(checks[index]!, outcome.counts[2 * index]!, outcome.counts[2 * index + 1]!, now);
    if (wait > 0 && wait > longest) {
      longest = wait;
      refusing = index;
    }
  }
  // The store said no but the figures read here say yes (a limit lowered between two reads): wait a second.
  if (refusing === -1) {
    refusing = 0;
    longest = GATE_RETRY_MS;
  }
  const check = checks[refusing]!;
  const seconds = Math.max(1, Math.ceil(longest / 1000));
  response.setHeader('retry-after', String(seconds));
  response.setHeader('retry-after-ms', String(Math.max(1, Math.ceil(longest))));
  setLimitHeaders(response, checks, outcome.counts, now, refusing);
  const current = outcome.counts[2 * refusing]!;
  const used = check.kind === 'concurrency' ? current : usedOf(current, outcome.counts[2 * refusing + 1]!, weightOf(now, check.windowMs));
  return refusalError(check, used, longest);
}

function setLimitHeaders(response: ServerResponse, checks: readonly LimitCheck[], counts: readonly number[], now: number, refusing: number): void {
  // The refusing check speaks for its kind; otherwise (and for the other kind) the check with the least left.
  const pinned = refusing >= 0 && checks[refusing]!.kind !== 'concurrency' ? refusing : -1;
  const pinnedRequests = pinned >= 0 && isRequestKind(checks[pinned]!.kind);
  let requests = -1;
  let requestsLeft = Number.POSITIVE_INFINITY;
  let tokens = -1;
  let tokensLeft = Number.POSITIVE_INFINITY;
  for (let index = 0; index < checks.length; index += 1) {
    const check = checks[index]!;
    if (check.kind === 'concurrency') continue;
    const left = check.limit - usedOf(counts[2 * index]!, counts[2 * index + 1]!, weightOf(now, check.windowMs));
    if (isRequestKind(check.kind)) {
      if (pinnedRequests ? index === pinned : left < requestsLeft) {
        requests = index;
        requestsLeft = left;
      }
    } else if (pinned >= 0 && !pinnedRequests ? index === pinned : left < tokensLeft) {
      tokens = index;
      tokensLeft = left;
    }
  }
  if (requests !== -1) setKindHeaders(response, 'requests', checks[requests]!, counts, requests, requestsLeft, now);
  if (tokens !== -1) setKindHeaders(response, 'tokens', checks[tokens]!, counts, tokens, tokensLeft, now);
}

function setKindHeaders(
  response: ServerResponse,
  kind: 'requests' | 'tokens',
  check: LimitCheck,
  counts: readonly number[],
  index: number,
  left: number,
  now: number,
): void {
  response.setHeader(`x-ratelimit-limit-${kind}`, String(check.limit));
  response.setHeader(`x-ratelimit-remaining-${kind}`, String(Math.max(0, left)));
  response.setHeader(`x-ratelimit-reset-${kind}`, openAIDuration(resetMs(counts[2 * index]!, counts[2 * index + 1]!, now, check.windowMs)));
}

/** OpenAI's duration format: "20ms", "1s", "1.5s", "6m0s", "1h2m3s". */
export function openAIDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const totalSeconds = Math.ceil(ms / 100) / 10;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = Math.round((totalSeconds % 60) * 10) / 10;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** The wait in Chinese: "20 秒", "6 分钟", "3 小时 20 分钟". */
function chineseWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} 秒`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} 分钟`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} 小时` : `${hours} 小时 ${minutes % 60} 分钟`;
}

function refusalError(check: LimitCheck, used: number, waitMsFigure: number): AppError {
  const { limit, owner } = check;
  const wait = chineseWait(waitMsFigure);
  const again = openAIDuration(waitMsFigure);
  switch (check.kind) {
    case 'rpm':
      return limitError(
        'requests',
        `${owner.zh}的请求过于频繁：每分钟最多 ${limit} 次，请 ${wait}后再试 (Rate limit reached for requests per min (RPM) on ${owner.en}: Limit ${limit}, Used ${used}, Requested 1. Please try again in ${again}.)`,
      );
    case 'rpd':
      return limitError(
        'requests',
        `${owner.zh}的请求次数已达每日上限：每天最多 ${limit} 次，请 ${wait}后再试 (Rate limit reached for requests per day (RPD) on ${owner.en}: Limit ${limit}, Used ${used}, Requested 1. Please try again in ${again}.)`,
      );
    case 'tpm':
      return limitError(
        'tokens',
        `${owner.zh}的 token 用量已达每分钟上限：每分钟最多 ${limit} 个，已用 ${used} 个，请 ${wait}后再试 (Rate limit reached for tokens per min (TPM) on ${owner.en}: Limit ${limit}, Used ${used}. Please try again in ${again}.)`,
      );
    case 'concurrency':
      return limitError(
        'requests',
        `${owner.zh}同时进行的请求已达上限：最多 ${limit} 个，请在进行中的请求结束后再试 (Too many concurrent requests on ${owner.en}: Limit ${limit}. Please try again once a request in flight has finished.)`,
      );
    // new-api's messages (middleware/model-rate-limit.go), word for word.
    case 'count':
      return new AppError(
        'rate_limit:model_request_count',
        `您已达到总请求数限制：${check.minutes}分钟内最多请求${limit}次，包括失败次数，请检查您的请求是否正确`,
        {
          status: 429,
          type: 'new_api_error',
        },
      );
    case 'success':
      return new AppError('rate_limit:model_request_success_count', `您已达到请求数限制：${check.minutes}分钟内最多请求${limit}次`, {
        status: 429,
        type: 'new_api_error',
      });
    default: {
      const unreachable: never = check.kind;
      return unreachable;
    }
  }
}

/** OpenAI's 429: type "requests" or "tokens", code rate_limit_exceeded. */
const limitError = (type: 'requests' | 'tokens', message: string) => new AppError('rate_limit:rate_limit_exceeded', message, { status: 429, type });

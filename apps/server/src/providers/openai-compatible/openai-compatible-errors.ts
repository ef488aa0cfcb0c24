import type { ErrorVerdict, UpstreamFailure } from '../provider-types.js';

/**
 * When an OpenAI-style upstream's error means the channel itself is broken, as opposed to the
 * request or a passing overload. The phrases are the ones OpenAI, Azure and the compatible
 * vendors actually send for revoked keys, closed accounts and spent balances. new-api's keyword
 * list (spent credit, disabled organisation, exceeded quota, permission denied ...) is not here:
 * it is the AutomaticDisableKeywords option, applied for every provider by channel-health.ts, so
 * an administrator who removes a phrase there stops it disabling channels.
 */
const DISABLING_CODES = new Set([
  'invalid_api_key',
  'account_deactivated',
  'billing_not_active',
  'insufficient_quota',
  'organization_deactivated',
  'api_key_revoked',
]);
const DISABLING_TYPES = new Set(['insufficient_quota', 'authentication_error', 'permission_error', 'forbidden']);
const DISABLING_PHRASES = [
  'incorrect api key',
  'invalid api key',
  'api key not valid',
  'invalid_api_key',
  'your account has been deactivated',
  'insufficient balance',
  'the api key you provided is invalid',
];

export function classifyOpenAICompatibleError(failure: UpstreamFailure): ErrorVerdict {
  const message = failure.message.toLowerCase();
  const disableChannel =
    failure.status === 401 ||
    DISABLING_CODES.has(failure.code) ||
    DISABLING_TYPES.has(failure.type) ||
    DISABLING_PHRASES.some((phrase) => message.includes(phrase));
  const status = failure.status;
  // 504/524 are the upstream's own gateway timing out: another try would only double the wait.
  const overloadedOrBroken = status === 429 || (status >= 500 && status !== 504 && status !== 524);
  // A rejected key is this channel's problem, not the request's: another channel may well work.
  const channelRefused = status === 401 || status === 403 || disableChannel;
  return { retryable: overloadedOrBroken || channelRefused, disableChannel };
}

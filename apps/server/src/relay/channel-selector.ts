import type { PriorityTier } from '../domain/relay-cache/channel-index.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';

/** Whether a channel may take a request now (the circuit breakers, see channel-breaker.ts). */
export interface ChannelGate {
  /** 0 when it may; else when it may again (ms), to choose the least bad when none may. */
  blockedUntil(channel: RelayChannel): number;
}

const OPEN_GATE: ChannelGate = { blockedUntil: () => 0 };

/** Tiers up to this size are searched channel by channel once a draw misses; larger ones draw again. */
const EXACT_TIER_SIZE = 16;
/** Draws from a larger tier before it passes the turn on: enough unless most of it is blocked. */
const MAX_DRAWS = 16;

/** The blocked channel whose breaker lets a request through soonest, among those looked at. */
interface Fallback {
  channel: RelayChannel | undefined;
  until: number;
}

/**
 * Chooses the channel for one attempt of a request. Pure: the tiers, the attempt number, the
 * channels already tried, the gate's answers and a random number in [0, 1) decide.
 *
 * Attempt 0 draws from the highest priority, attempt 1 from the next lower one and so on (the
 * lowest tier serves every later attempt), as new-api steps down on retries. A tier whose every
 * channel was already tried or is blocked passes the turn to the next lower tier, then to higher
 * ones, so a request never goes to the same channel twice. Within a tier the draw is weighted by
 * `weight`; a tier whose weights are all 0 draws uniformly.
 *
 * A blocked channel (circuit open) costs one more draw, not a pass over the tier. When every
 * channel looked at is blocked, the first attempt still goes to the one that unblocks soonest
 * (better an answer from a channel that may have recovered than a refusal); retries do not.
 */
export function pickChannel(
  tiers: readonly PriorityTier[],
  attempt: number,
  tried: readonly number[],
  random: () => number = Math.random,
  gate: ChannelGate = OPEN_GATE,
): RelayChannel | undefined {
  if (tiers.length === 0) return undefined;
  const preferred = Math.min(attempt, tiers.length - 1);
  let fallback: Fallback | undefined;
  for (let step = 0; step < tiers.length; step += 1) {
    // The preferred tier, the lower ones, then the higher ones nearest first.
    const index = step < tiers.length - preferred ? preferred + step : tiers.length - 1 - step;
    const tier = tiers[index]!;
    // The common case: one draw by binary search, O(log n) for any tier size.
    const first = drawOne(tier, random);
    const until = tried.includes(first.id) ? -1 : gate.blockedUntil(first);
    if (until === 0) return first;
    fallback ??= { channel: undefined, until: Number.POSITIVE_INFINITY };
    if (until > 0) noteBlocked(fallback, first, until);
    const channel = drawAgain(tier, tried, random, gate, fallback, until === -1);
    if (channel) return channel;
  }
  return tried.length === 0 ? fallback?.channel : undefined;
}

function noteBlocked(fallback: Fallback, channel: RelayChannel, until: number): void {
  if (until < fallback.until) {
    fallback.channel = channel;
    fallback.until = until;
  }
}

/** A weighted draw from the whole tier (uniform when every weight is 0). */
function drawOne(tier: PriorityTier, random: () => number): RelayChannel {
  const { channels, cumulative, totalWeight } = tier;
  if (totalWeight <= 0) return channels[Math.floor(random() * channels.length)]!;
  const target = random() * totalWeight;
  let low = 0;
  let high = channels.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cumulative[middle]! > target) high = middle;
    else low = middle + 1;
  }
  return channels[low]!;
}

/**
 * The first draw hit a channel already tried or blocked. Drawing from the whole tier and
 * rejecting such channels gives each of the others exactly its weighted share of what is left.
 */
function drawAgain(
  tier: PriorityTier,
  tried: readonly number[],
  random: () => number,
  gate: ChannelGate,
  fallback: Fallback,
  firstWasTried: boolean,
): RelayChannel | undefined {
  const { channels } = tier;
  if (channels.length > EXACT_TIER_SIZE) {
    let missedTried = firstWasTried;
    for (let draw = 1; draw < MAX_DRAWS; draw += 1) {
      const channel = drawOne(tier, random);
      if (tried.includes(channel.id)) {
        missedTried = true;
        continue;
      }
      const until = gate.blockedUntil(channel);
      if (until === 0) return channel;
      noteBlocked(fallback, channel, until);
    }
    // Only a retry (a handful of channels tried, as before breakers) may pay for a pass over a
    // large tier; a tier that is mostly blocked hands the request to the next one instead.
    if (!missedTried) return undefined;
  }
  const left: RelayChannel[] = [];
  let weight = 0;
  for (const channel of channels) {
    if (tried.includes(channel.id)) continue;
    const until = gate.blockedUntil(channel);
    if (until !== 0) {
      noteBlocked(fallback, channel, until);
      continue;
    }
    left.push(channel);
    weight += channel.weight;
  }
  if (left.length === 0) return undefined;
  if (weight <= 0) return left[Math.floor(random() * left.length)];
  let target = random() * weight;
  for (const channel of left) {
    target -= channel.weight;
    if (target < 0) return channel;
  }
  return left.at(-1);
}

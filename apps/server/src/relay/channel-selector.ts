import type { PriorityTier } from '../domain/relay-cache/channel-index.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';

/**
 * Chooses the channel for one attempt of a request. Pure: the tiers, the attempt number, the
 * channels already tried and a random number in [0, 1) decide.
 *
 * Attempt 0 draws from the highest priority, attempt 1 from the next lower one and so on (the
 * lowest tier serves every later attempt), as new-api steps down on retries. A tier whose every
 * channel was already tried passes the turn to the next lower tier, then to higher ones, so a
 * request never goes to the same channel twice. Within a tier the draw is weighted by `weight`;
 * a tier whose weights are all 0 draws uniformly.
 */
export function pickChannel(
  tiers: readonly PriorityTier[],
  attempt: number,
  tried: readonly number[],
  random: () => number = Math.random,
): RelayChannel | undefined {
  if (tiers.length === 0) return undefined;
  const preferred = Math.min(attempt, tiers.length - 1);
  for (let index = preferred; index < tiers.length; index += 1) {
    const channel = drawFromTier(tiers[index]!, tried, random);
    if (channel) return channel;
  }
  for (let index = preferred - 1; index >= 0; index -= 1) {
    const channel = drawFromTier(tiers[index]!, tried, random);
    if (channel) return channel;
  }
  return undefined;
}

function drawFromTier(tier: PriorityTier, tried: readonly number[], random: () => number): RelayChannel | undefined {
  const { channels, cumulative, totalWeight } = tier;
  const anyTried = tried.length > 0 && channels.some((channel) => tried.includes(channel.id));
  if (!anyTried) {
    // The common case: a binary search over the running sums, O(log n) for any tier size.
    if (totalWeight <= 0) return channels[Math.floor(random() * channels.length)];
    const target = random() * totalWeight;
    let low = 0;
    let high = channels.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! > target) high = middle;
      else low = middle + 1;
    }
    return channels[low];
  }
  // A retry inside a tier: draw among what is left.
  const left = channels.filter((channel) => !tried.includes(channel.id));
  if (left.length === 0) return undefined;
  const weight = left.reduce((sum, channel) => sum + channel.weight, 0);
  if (weight <= 0) return left[Math.floor(random() * left.length)];
  let target = random() * weight;
  for (const channel of left) {
    target -= channel.weight;
    if (target < 0) return channel;
  }
  return left.at(-1);
}

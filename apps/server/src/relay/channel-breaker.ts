import { nextKeyIndex, type RelayChannel } from '../domain/relay-cache/relay-channel.js';

/**
 * Circuit breakers for this node's view of each upstream: one per key of each channel (a
 * single-key channel has one), kept in memory only. A key whose breaker is open is left out when
 * a key is drawn; a channel whose every key is open is left out by routing (see pickChannel).
 *
 * - closed: failures are counted; `failureThreshold` of them in a row, each within `windowMs` of
 *   the first, open it. A success in between starts the count again, so a busy channel's
 *   occasional error does not add up to an outage.
 * - open: skipped until `cooldownMs` has passed; then the next draw takes it as the one probe.
 * - half open (probing): the probe is under way and nothing else is let through. Its success
 *   closes the breaker; its failure opens it for another cool-down. A probe that never reports
 *   (the client left, the process lost track) lets another one go after `probeLeaseMs`.
 *
 * Which failures count, and the once-and-for-all disabling of dead keys, are ChannelHealth's call.
 */
export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerSettings {
  /** Failures in a row that open a breaker; 0 turns breakers off. */
  failureThreshold: number;
  windowMs: number;
  cooldownMs: number;
  /** How long a probe may run before another may go. */
  probeLeaseMs: number;
}

/** What the channel list shows of a channel's breakers. */
export interface BreakerView {
  breaker_state: BreakerState;
  /** The last failure that counted, for an open or probing channel; '' when closed. */
  breaker_reason: string;
  /** Unix seconds when the cool-down ends (open) or the probe's lease ends (half open); 0 when closed. */
  breaker_until: number;
  /** Keys whose own breaker is not closed (a multi-key channel can be closed with some keys open). */
  breaker_open_keys: number;
}

const CLOSED_VIEW: BreakerView = { breaker_state: 'closed', breaker_reason: '', breaker_until: 0, breaker_open_keys: 0 };

/** One key's breaker; a key without one is closed with no failures. */
interface KeyBreaker {
  state: 'closed' | 'open' | 'probing';
  /** Times of the failures in a row while closed. */
  failures: number[];
  /** Open: when a probe may go. Probing: when the probe's lease ends. */
  until: number;
  reason: string;
}

/** The breakers of one channel's keys, by key text so that an edited key list keeps the others'. */
interface ChannelBreakerSet {
  keys: Map<string, KeyBreaker>;
  /** Breakers here that are not closed (some may belong to keys since removed). */
  notClosed: number;
}

export class ChannelBreakers {
  /** Only channels with a failure on record: the usual lookup finds nothing and costs one miss. */
  private readonly channels = new Map<number, ChannelBreakerSet>();

  constructor(
    private readonly settings: () => BreakerSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * 0 when a request may go to the channel now (some key is closed, or a probe may go); else when
   * one may (ms), which tells the least bad channel apart when all are open. Reads, never changes.
   */
  blockedUntil(channel: RelayChannel): number {
    if (this.channels.size === 0) return 0;
    const set = this.channels.get(channel.id);
    if (!set || set.notClosed < channel.keys.length || this.settings().failureThreshold <= 0) return 0;
    const now = this.now();
    let until = Number.POSITIVE_INFINITY;
    for (const key of channel.keys) {
      const breaker = set.keys.get(key);
      if (!breaker || breaker.state === 'closed' || breaker.until <= now) return 0;
      if (breaker.until < until) until = breaker.until;
    }
    return until;
  }

  /**
   * The index of the key to use for a request to `channel`: a closed key drawn at random (or the next
   * in turn, for a channel in `polling` mode), else a key whose
   * cool-down is over (taking its probe), else, when routing had nothing better, the key whose
   * cool-down ends first. A `preferred` key (a session's, see channel-affinity.ts) is taken in
   * place of the random one, under the same rules.
   */
  drawKey(channel: RelayChannel, random: () => number = Math.random, preferred?: number): number {
    const { keys } = channel;
    const drawn = preferred !== undefined && preferred < keys.length ? preferred : nextKeyIndex(channel, random);
    const set = this.channels.size === 0 ? undefined : this.channels.get(channel.id);
    if (!set || set.notClosed === 0 || this.settings().failureThreshold <= 0) return drawn;
    const now = this.now();
    const first = set.keys.get(keys[drawn]!);
    if (!first || first.state === 'closed') return drawn;
    // Drawn past its cool-down: this request is its probe (else a key would stay out for good while others work).
    if (first.until <= now) return this.takeProbe(first, drawn, now);
    // Drawn while cooling down: the next closed key after it, else a probe, else the least bad.
    let probe = -1;
    let leastBad = drawn;
    let leastBadUntil = first.until;
    for (let step = 1; step < keys.length; step += 1) {
      const index = (drawn + step) % keys.length;
      const breaker = set.keys.get(keys[index]!);
      if (!breaker || breaker.state === 'closed') return index;
      if (probe === -1 && breaker.until <= now) probe = index;
      if (breaker.until < leastBadUntil) {
        leastBad = index;
        leastBadUntil = breaker.until;
      }
    }
    return probe === -1 ? leastBad : this.takeProbe(set.keys.get(keys[probe]!)!, probe, now);
  }

  private takeProbe(breaker: KeyBreaker, keyIndex: number, now: number): number {
    breaker.state = 'probing';
    breaker.until = now + this.settings().probeLeaseMs;
    return keyIndex;
  }

  /**
   * The upstream answered the key's request: the count of failures starts again, and a probe (or
   * a forced try) closes the breaker. True when it closed an open or probing breaker.
   */
  succeeded(channel: RelayChannel, keyIndex: number): boolean {
    if (this.channels.size === 0) return false;
    const set = this.channels.get(channel.id);
    const key = channel.keys[keyIndex];
    const breaker = set && key !== undefined ? set.keys.get(key) : undefined;
    if (!set || !breaker) return false;
    const wasOpen = breaker.state !== 'closed';
    if (wasOpen) set.notClosed -= 1;
    set.keys.delete(key!);
    if (set.keys.size === 0) this.channels.delete(channel.id);
    return wasOpen;
  }

  /** The key's request ended without a verdict (the client left first): a probe may go again now. */
  abandoned(channel: RelayChannel, keyIndex: number): void {
    if (this.channels.size === 0) return;
    const key = channel.keys[keyIndex];
    const breaker = key === undefined ? undefined : this.channels.get(channel.id)?.keys.get(key);
    if (breaker?.state !== 'probing') return;
    breaker.state = 'open';
    breaker.until = this.now();
  }

  /**
   * A failure that counts against the key used (`keyIndex`), or against every key of the channel
   * (undefined: the upstream itself could not be reached, whatever the key). True when this
   * failure opened a breaker.
   */
  failed(channel: RelayChannel, keyIndex: number | undefined, reason: string): boolean {
    const settings = this.settings();
    if (settings.failureThreshold <= 0) return false;
    let opened = false;
    let set = this.channels.get(channel.id);
    if (!set) this.channels.set(channel.id, (set = { keys: new Map(), notClosed: 0 }));
    const now = this.now();
    const keys = keyIndex === undefined ? channel.keys : channel.keys.slice(keyIndex, keyIndex + 1);
    for (const key of keys) {
      let breaker = set.keys.get(key);
      if (!breaker) set.keys.set(key, (breaker = { state: 'closed', failures: [], until: 0, reason: '' }));
      breaker.reason = reason;
      if (breaker.state === 'probing') {
        breaker.state = 'open';
        breaker.until = now + settings.cooldownMs;
        continue;
      }
      // Open already: a request sent before it opened, or a forced try; the cool-down stands.
      if (breaker.state === 'open') continue;
      const failures = breaker.failures;
      failures.push(now);
      let stale = 0;
      while (stale < failures.length && failures[stale]! <= now - settings.windowMs) stale += 1;
      if (stale > 0) failures.splice(0, stale);
      if (failures.length >= settings.failureThreshold) {
        breaker.state = 'open';
        breaker.failures = [];
        breaker.until = now + settings.cooldownMs;
        set.notClosed += 1;
        opened = true;
      }
    }
    return opened;
  }

  /** The channel's state as the list shows it, from its key field (one key per line). */
  view(channelId: number, keys: readonly string[]): BreakerView {
    const set = this.channels.get(channelId);
    if (!set || set.notClosed === 0 || this.settings().failureThreshold <= 0) return CLOSED_VIEW;
    const now = this.now();
    let openKeys = 0;
    let probing: KeyBreaker | undefined;
    let soonest: KeyBreaker | undefined;
    for (const key of keys) {
      const breaker = set.keys.get(key);
      if (!breaker || breaker.state === 'closed') continue;
      openKeys += 1;
      if (breaker.state === 'probing' || breaker.until <= now) probing ??= breaker;
      if (!soonest || breaker.until < soonest.until) soonest = breaker;
    }
    if (openKeys === 0) return CLOSED_VIEW;
    if (openKeys < keys.length) return { ...CLOSED_VIEW, breaker_open_keys: openKeys };
    const shown = probing ?? soonest!;
    return {
      // Past its cool-down a breaker lets the next request through as the probe: half open.
      breaker_state: probing ? 'half_open' : 'open',
      breaker_reason: shown.reason,
      breaker_until: Math.ceil(shown.until / 1000),
      breaker_open_keys: openKeys,
    };
  }
}

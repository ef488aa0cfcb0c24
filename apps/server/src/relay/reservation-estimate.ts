import type { ReservationNeed } from '../domain/billing/charge-service.js';
import { promptCostFactor, quotaFor, type ModelPricing } from '../domain/billing/pricing.js';
import type { PromptMargins } from '../domain/billing/prompt-margins.js';
import type { ImageTokenCounter } from './image-tokens.js';
import type { RelayInput } from './relay-input.js';
import { countPromptTokens } from './token-counter.js';

/** What a reservation needs to know of the call beyond its input. */
export interface ReservationTerms {
  pricing: ModelPricing;
  quotaPerUnit: number;
  /** The call's output bound per choice: its max_tokens, else the model's maximum output. */
  outputBound: number;
  /** The choices asked for (n): each may run to the bound. */
  choices: number;
  /** Whether the upstream can be told a lower output limit (chat, completions, responses). */
  cappable: boolean;
  /** The least output a capped call is sent with (MinCappedOutputTokens). */
  minCappedOutput: number;
}

/**
 * A call's counted reservation, for when the lease could not cover its quick bound at once: the
 * prompt is counted once (times the model's prompt margin), and the call's cost at its full output
 * bound is held, or, when the balance cannot pay that, the output the balance does pay for. A
 * class, not closures: the hot path allocates nothing for it when the lease covers the call.
 */
export class ReservationEstimate {
  private promptTokens: Promise<number> | undefined;
  /** Our own count of the prompt, once made: the settlement compares the upstream's with it. */
  counted: number | undefined;

  constructor(
    private readonly input: RelayInput,
    private readonly terms: ReservationTerms,
    private readonly images: ImageTokenCounter,
    private readonly margins: PromptMargins,
  ) {}

  readonly estimate = (): Promise<ReservationNeed> => {
    this.promptTokens ??= countPromptTokens(this.input.spec.endpoint, this.input.fields, this.images).then((counted) => (this.counted = counted));
    return this.promptTokens.then((counted) => this.need(counted));
  };

  private need(counted: number): ReservationNeed {
    const { pricing, quotaPerUnit, outputBound, choices, cappable, minCappedOutput } = this.terms;
    const { calls } = this.input;
    // Asked again after every wait: the margin may have learned from the calls that settled.
    const promptTokens = Math.ceil(this.margins.boundOfCount(this.input.model, counted) * promptFactor(this.input, pricing) - 1e-6);
    const full = quotaFor(pricing, { promptTokens, completionTokens: outputBound * choices, calls }, quotaPerUnit);
    const perToken = pricing.groupRatio * pricing.modelRatio * pricing.completionRatio * choices;
    if (!cappable || !(perToken > 0)) return { full };
    const capped = (available: number) => {
      const promptCost = quotaFor(pricing, { promptTokens, completionTokens: 0, calls }, quotaPerUnit);
      let outputTokens = Math.min(outputBound - 1, Math.floor((available - promptCost) / perToken) + 1);
      const cost = (tokens: number) => quotaFor(pricing, { promptTokens, completionTokens: tokens * choices, calls }, quotaPerUnit);
      while (outputTokens >= minCappedOutput && cost(outputTokens) > available) outputTokens -= 1;
      if (outputTokens < minCappedOutput) return undefined;
      return { amount: cost(outputTokens), outputTokens };
    };
    return { full, capped };
  }
}

/** Formats whose cache_control marks reach Claude: Anthropic's own, and OpenAI chat parts (carried as new-api carries them). */
const CACHE_MARKING_FORMATS: ReadonlySet<string> = new Set(['anthropic', 'openai']);
/** A cache_control asking for Claude's one-hour cache, whose writes cost more. */
const HOUR_TTL = /"ttl"\s*:\s*"1h"/;

/**
 * What a prompt token may cost at most, in plain prompt tokens: more than 1 for cache reads when
 * CacheRatio is above 1, and for cache writes (CreateCacheRatio, 1.25 by default; × 6/3.75 for an
 * hour's) when the request can cause them: a request that marks blocks or parts with cache_control
 * (only Claude writes caches, and only where asked).
 */
export function promptFactor(input: RelayInput, pricing: ModelPricing): number {
  const reads = Math.max(1, pricing.cacheRatio ?? 1);
  if (!CACHE_MARKING_FORMATS.has(input.format) || input.body.kind !== 'json' || !input.body.raw.includes('"cache_control"')) return reads;
  return promptCostFactor(pricing, HOUR_TTL.test(input.body.raw));
}

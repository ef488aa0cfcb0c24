import { promptCostFactor, quotaFor, type ModelPricing } from '../domain/billing/pricing.js';
import type { RelayInput } from './relay-input.js';
import type { RelayService } from './relay-service.js';
import { countPromptTokens } from './token-counter.js';

/**
 * A call's counted estimate, for a reservation the lease could not cover at once: the prompt is
 * counted once, the completion estimate asked again after every wait (it may have learned). A
 * class, not closures: the hot path allocates nothing for it when the lease covers the call.
 */
export class ReservationEstimate {
  private promptTokens: Promise<number> | undefined;

  constructor(
    private readonly service: RelayService,
    private readonly input: RelayInput,
    private readonly pricing: ModelPricing,
    private readonly quotaPerUnit: number,
  ) {}

  readonly estimate = (): Promise<number> => {
    this.promptTokens ??= countPromptTokens(this.input.spec.endpoint, this.input.fields, this.service.images);
    const factor = promptFactor(this.input, this.pricing);
    return this.promptTokens.then((promptTokens) =>
      quotaFor(this.pricing, { promptTokens: Math.ceil(promptTokens * factor), completionTokens: this.service.outputEstimate(this.input), calls: this.input.calls }, this.quotaPerUnit),
    );
  };
}

/**
 * What a prompt token may cost at most, in plain prompt tokens: more than 1 for cache reads when
 * CacheRatio is above 1, and for cache writes (CreateCacheRatio, 1.25 by default) when the request
 * can cause them: an Anthropic request that marks blocks with cache_control (only Claude writes
 * caches, and only where asked; conversions from other formats carry no such marks).
 */
export function promptFactor(input: RelayInput, pricing: ModelPricing): number {
  const reads = Math.max(1, pricing.cacheRatio ?? 1);
  if (input.format !== 'anthropic' || input.body.kind !== 'json' || !input.body.raw.includes('"cache_control"')) return reads;
  return promptCostFactor(pricing);
}

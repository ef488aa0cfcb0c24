import { describe, expect, it } from 'vitest';
import type { ModelPricing } from '../domain/billing/pricing.js';
import type { RelayInput } from './relay-input.js';
import { promptFactor } from './reservation-estimate.js';

const pricing: ModelPricing = { modelPrice: -1, modelRatio: 2, completionRatio: 5, cacheRatio: 0.1, createCacheRatio: 1.25, groupRatio: 1 };

/** The fields promptFactor reads of a request. */
const inputOf = (format: RelayInput['format'], body: Record<string, unknown>): RelayInput => {
  const raw = JSON.stringify(body);
  return { format, body: { kind: 'json', json: body, raw } } as RelayInput;
};

describe('promptFactor', () => {
  const marked = { type: 'text', text: 'A long document.', cache_control: { type: 'ephemeral' } };

  it('holds prompt tokens at the cache-write price only for requests whose marks reach Claude', () => {
    expect(promptFactor(inputOf('anthropic', { messages: [{ role: 'user', content: [marked] }] }), pricing)).toBe(1.25);
    // An OpenAI chat client's marked parts are carried to Claude (new-api does the same).
    expect(promptFactor(inputOf('openai', { messages: [{ role: 'user', content: [marked] }] }), pricing)).toBe(1.25);
    expect(promptFactor(inputOf('openai', { messages: [{ role: 'user', content: 'hi' }] }), pricing)).toBe(1);
    expect(promptFactor(inputOf('gemini', { contents: [{ parts: [{ text: '"cache_control"' }] }] }), pricing)).toBe(1);
  });

  it('holds them at the one-hour write price when a mark asks for an hour', () => {
    const hour = { ...marked, cache_control: { type: 'ephemeral', ttl: '1h' } };
    expect(promptFactor(inputOf('anthropic', { system: [hour], messages: [] }), pricing)).toBe(2);
    expect(promptFactor(inputOf('openai', { messages: [{ role: 'system', content: [hour] }] }), pricing)).toBe(2);
  });
});

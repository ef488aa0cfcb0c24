import { ChannelType } from '@modelgate/contract';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { UpstreamJsonGet } from './provider-types.js';
import { adaptorFor } from './registry.js';

/** A fake upstream: answers each URL from the table, after checking the answer against the listing's schema as the console does. */
function fakeGet(answers: Record<string, unknown>, seen: { url: string; headers: Record<string, string> }[]): UpstreamJsonGet {
  return async <T extends z.ZodType>(url: string, headers: Record<string, string>, schema: T) => {
    seen.push({ url, headers });
    if (!(url in answers)) throw new Error(`unexpected GET ${url}`);
    return schema.parse(answers[url]) as z.output<T>;
  };
}

const listingOf = (type: number) => {
  const listing = adaptorFor(type)?.modelList;
  if (listing?.kind !== 'base') throw new Error(`type ${type} does not list from its base URL`);
  return listing;
};

describe('model listings read from the channel base URL', () => {
  it('Gemini follows nextPageToken and drops the models/ prefix', async () => {
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const get = fakeGet(
      {
        'https://g.test/v1beta/models?pageSize=1000': { models: [{ name: 'models/gemini-2.5-pro' }], nextPageToken: 'a b' },
        'https://g.test/v1beta/models?pageSize=1000&pageToken=a%20b': { models: [{ name: 'models/gemini-2.5-flash' }] },
      },
      seen,
    );
    expect(await listingOf(ChannelType.Gemini).list('https://g.test', 'k1', get)).toEqual(['gemini-2.5-pro', 'gemini-2.5-flash']);
    expect(seen.map((call) => call.headers)).toEqual([{ 'x-goog-api-key': 'k1' }, { 'x-goog-api-key': 'k1' }]);
  });

  it('Gemini stops after ten pages even if the upstream keeps giving tokens', async () => {
    let calls = 0;
    const get = (async () => {
      calls += 1;
      return { models: [{ name: `models/m${calls}` }], nextPageToken: 'again' };
    }) as UpstreamJsonGet;
    expect(await listingOf(ChannelType.Gemini).list('https://g.test', 'k', get)).toHaveLength(10);
    expect(calls).toBe(10);
  });

  it('Anthropic asks /v1/models with its key and API version', async () => {
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const get = fakeGet({ 'https://a.test/v1/models?limit=1000': { data: [{ id: 'claude-sonnet-4-5' }, { id: 'claude-opus-4-1' }] } }, seen);
    expect(await listingOf(ChannelType.Anthropic).list('https://a.test', 'sk-ant', get)).toEqual(['claude-sonnet-4-5', 'claude-opus-4-1']);
    expect(seen[0]?.headers).toEqual({ 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01' });
  });

  it('Ollama lists its pulled tags, without a key header', async () => {
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const get = fakeGet({ 'http://o.test:11434/api/tags': { models: [{ name: 'llama3.2:latest' }] } }, seen);
    expect(await listingOf(ChannelType.Ollama).list('http://o.test:11434', 'unused', get)).toEqual(['llama3.2:latest']);
    expect(seen[0]?.headers).toEqual({});
  });

  it('leaves the other OpenAI-compatible vendors to OpenAI /v1/models', () => {
    expect(adaptorFor(ChannelType.OpenAI)?.modelList).toBeUndefined();
    expect(adaptorFor(ChannelType.DeepSeek)?.modelList).toBeUndefined();
  });
});

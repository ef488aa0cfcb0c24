import { describe, expect, it } from 'vitest';
import type { UpstreamCall } from '../provider-types.js';
import { upstreamBody } from './openai-compatible-adaptor.js';

const call = (raw: string, options: { upstreamModel?: string; askStreamUsage?: boolean } = {}): UpstreamCall => {
  const json = JSON.parse(raw) as Record<string, unknown>;
  return {
    endpoint: 'chat',
    channel: { origin: 'http://upstream.test', basePath: '' } as UpstreamCall['channel'],
    key: 'k',
    model: String(json.model),
    upstreamModel: options.upstreamModel ?? String(json.model),
    body: { kind: 'json', json, raw },
    askStreamUsage: options.askStreamUsage ?? false,
  };
};
const sent = (result: ReturnType<typeof upstreamBody>) => JSON.parse(String(result.body)) as Record<string, unknown>;

describe('the JSON sent upstream', () => {
  const raw = ' {"model":"gpt-4o-mini","messages":[{"role":"user","content":"{\\"a\\":1}"}],"stream":true}';

  it('is the client text itself when nothing changes', () => {
    expect(upstreamBody(call(raw)).body).toBe(raw);
  });

  it('gains stream_options.include_usage without losing a field when the relay asks for usage', () => {
    const result = upstreamBody(call(raw, { askStreamUsage: true }));
    expect(sent(result)).toEqual({ ...JSON.parse(raw), stream_options: { include_usage: true } });
  });

  it('keeps the client stream options it merges include_usage into', () => {
    const withOptions = '{"model":"m","stream":true,"stream_options":{"include_usage":false,"chunk_size":3}}';
    expect(sent(upstreamBody(call(withOptions, { askStreamUsage: true })))).toEqual({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true, chunk_size: 3 },
    });
  });

  it('names the mapped model', () => {
    expect(sent(upstreamBody(call(raw, { upstreamModel: 'gpt-4o-mini-2024-07-18', askStreamUsage: true })))).toEqual({
      ...JSON.parse(raw),
      model: 'gpt-4o-mini-2024-07-18',
      stream_options: { include_usage: true },
    });
  });
});

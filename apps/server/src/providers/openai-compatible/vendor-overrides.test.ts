import type { OpenAIEndpoint } from '@modelgate/protocol';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.js';
import type { UpstreamCall } from '../provider-types.js';
import { adaptorFor } from '../registry.js';
import { joinVendorPath } from './vendor-overrides.js';

const KEY = 'vendor-key-123';

function build(type: number, endpoint: OpenAIEndpoint, options: { base?: string; other?: string } = {}) {
  const adaptor = adaptorFor(type);
  if (!adaptor) throw new Error(`no adaptor for type ${type}`);
  const base = new URL(options.base ?? 'https://vendor.test');
  const json = { model: 'm', messages: [{ role: 'user', content: 'hi' }], input: 'hi' };
  const call: UpstreamCall = {
    endpoint,
    channel: { type, origin: base.origin, basePath: base.pathname.replace(/\/+$/, ''), other: options.other ?? '', organization: '' },
    key: KEY,
    model: 'm',
    upstreamModel: 'm',
    body: { kind: 'json', json, raw: JSON.stringify(json) },
    askStreamUsage: false,
  };
  const request = adaptor.buildRequest(call);
  return { adaptor, url: `${request.origin}${request.path}`, headers: request.headers };
}

describe('OpenAI-compatible vendors: the URL and headers each one gets', () => {
  it.each([
    [16, 'chat', 'https://open.bigmodel.cn', 'https://open.bigmodel.cn/api/paas/v4/chat/completions'],
    [16, 'embeddings', 'https://open.bigmodel.cn', 'https://open.bigmodel.cn/api/paas/v4/embeddings'],
    [26, 'chat', 'https://open.bigmodel.cn/api/paas/v4', 'https://open.bigmodel.cn/api/paas/v4/chat/completions'],
    [17, 'chat', 'https://dashscope.aliyuncs.com', 'https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions'],
    [17, 'embeddings', 'https://dashscope.aliyuncs.com/compatible-mode/v1', 'https://dashscope.aliyuncs.com/compatible-mode/v1/embeddings'],
    [45, 'chat', 'https://ark.cn-beijing.volces.com', 'https://ark.cn-beijing.volces.com/api/v3/chat/completions'],
    [45, 'embeddings', 'https://ark.cn-beijing.volces.com/api/v3', 'https://ark.cn-beijing.volces.com/api/v3/embeddings'],
    [23, 'chat', 'https://api.hunyuan.cloud.tencent.com', 'https://api.hunyuan.cloud.tencent.com/v1/chat/completions'],
    [23, 'embeddings', 'https://api.hunyuan.cloud.tencent.com/v1', 'https://api.hunyuan.cloud.tencent.com/v1/embeddings'],
  ] as const)('type %i %s on %s → %s', (type, endpoint, base, expected) => {
    const { url, headers } = build(type, endpoint, { base });
    expect(url).toBe(expected);
    expect(headers.authorization).toBe(`Bearer ${KEY}`);
    expect(headers['content-type']).toBe('application/json');
  });

  it('Cloudflare: the account id from the channel’s other field goes into the path', () => {
    expect(build(39, 'chat', { base: 'https://api.cloudflare.com', other: ' 0123abcd ' }).url).toBe(
      'https://api.cloudflare.com/client/v4/accounts/0123abcd/ai/v1/chat/completions',
    );
    const embeddings = build(39, 'embeddings', { base: 'https://api.cloudflare.com/client/v4', other: '0123abcd' });
    expect(embeddings.url).toBe('https://api.cloudflare.com/client/v4/accounts/0123abcd/ai/v1/embeddings');
    expect(embeddings.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(build(39, 'responses', { other: 'acc' }).url).toBe('https://vendor.test/client/v4/accounts/acc/ai/v1/responses');
  });

  it('Cloudflare without an account id: a clear error naming the missing field, never the key', () => {
    let thrown: unknown;
    try {
      build(39, 'chat', { other: '  ' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('channel:missing_account_id');
    expect((thrown as AppError).message).toMatch(/Account ID/);
    expect((thrown as AppError).message).not.toContain(KEY);
  });

  it('serves only the endpoints each vendor has at a known path', () => {
    expect(adaptorFor(17)!.supports('images')).toBe(false);
    expect(adaptorFor(17)!.supports('embeddings')).toBe(true);
    expect(adaptorFor(39)!.supports('images')).toBe(false);
    expect(adaptorFor(45)!.supports('images')).toBe(true);
    expect(adaptorFor(16)!.supports('audio' as OpenAIEndpoint)).toBe(false);
  });

  it('asks for stream usage where the vendor documents stream_options (DashScope, Ark)', () => {
    expect(adaptorFor(17)!.streamUsageOption).toBe(true);
    expect(adaptorFor(45)!.streamUsageOption).toBe(true);
    expect(adaptorFor(16)!.streamUsageOption).toBe(false);
  });

  it('leaves the types without an OpenAI-compatible path unsupported', () => {
    for (const type of [11, 15, 18, 21, 37, 49, 50, 51, 52, 54, 55, 56]) expect(adaptorFor(type), `type ${type}`).toBeUndefined();
  });
});

describe('joinVendorPath', () => {
  it('does not repeat the part the base URL and the path share', () => {
    expect(joinVendorPath('', '/api/v3/chat/completions')).toBe('/api/v3/chat/completions');
    expect(joinVendorPath('/api/v3', '/api/v3/chat/completions')).toBe('/api/v3/chat/completions');
    expect(joinVendorPath('/api/v3/', '/api/v3/chat/completions')).toBe('/api/v3/chat/completions');
    expect(joinVendorPath('/proxy', '/api/v3/chat/completions')).toBe('/proxy/api/v3/chat/completions');
    expect(joinVendorPath('/proxy/compatible-mode', '/compatible-mode/v1/embeddings')).toBe('/proxy/compatible-mode/v1/embeddings');
  });
});

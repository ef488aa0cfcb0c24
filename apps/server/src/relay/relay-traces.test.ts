import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OtlpReceiver, type ReceivedSpan } from '../lib/telemetry/testing/otlp-receiver.js';
import { chatCompletionBody, chatStream, sendJson } from './testing/mock-upstream.js';
import { priceModel, seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

const SERVER = 2;
const CLIENT = 3;
const STATUS_ERROR = 2;

let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await new OtlpReceiver().start();
});
afterAll(async () => {
  await receiver.close();
});

async function chat(env: RelayTestEnv, apiKey: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'a prompt that must not be traced' }], ...body }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

/** Sends the spans ended so far to the receiver (resolves once it has answered). */
async function exported(env: RelayTestEnv): Promise<ReceivedSpan[]> {
  // A call's span ends after its last bytes are written: the client can have read them a moment
  // before. Each test makes one sampled call, so its span is what is waited for (5 s at most).
  const deadline = Date.now() + 5_000;
  for (;;) {
    await env.context.tracing!.flush();
    if (callSpans(receiver.spans).length > 0 || Date.now() > deadline) return receiver.spans;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const callSpans = (spans: ReceivedSpan[]) => spans.filter((span) => span.kind === SERVER);
const attemptsOf = (spans: ReceivedSpan[], call: ReceivedSpan) =>
  spans
    .filter((span) => span.parentSpanId === call.spanId)
    .sort((a, b) => Number(a.attributes['modelgate.attempt']) - Number(b.attributes['modelgate.attempt']));

async function payer(env: RelayTestEnv, model: string, options: { modelLimits?: string[] } = {}) {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id, options);
  await priceModel(env.context, model, 2, 3);
  return { user, token };
}

describe('traces over OTLP/HTTP protobuf (the default protocol)', () => {
  let env: RelayTestEnv;

  beforeAll(async () => {
    env = await startRelayTestEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=s3cret%20value',
      OTEL_SERVICE_NAME: 'gateway-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,service.name=overridden',
    });
  });
  afterEach(async () => {
    env.upstream.respond();
    await setOption(env.context, 'RetryTimes', 0);
    receiver.clear();
  });
  afterAll(async () => {
    await env.close();
  });

  it('sends one SERVER span per call under the client’s traceparent, with a CLIENT span for its attempt, tokens and the quota its log charged', async () => {
    const model = unique('trace-model');
    const { user, token } = await payer(env, model);
    const channelId = await seedChannel(env.context, {
      key: 'sk-one',
      name: 'first upstream',
      baseUrl: env.upstream.url,
      models: [model],
      groups: [user.group],
    });
    const clientTrace = '0af7651916cd43dd8448eb211c80319c';
    const clientSpan = 'b7ad6b7169203331';

    const answer = await chat(env, token.apiKey, { model }, { traceparent: `00-${clientTrace}-${clientSpan}-01` });
    expect(answer.status).toBe(200);
    const spans = await exported(env);

    const received = receiver.exports[0]!;
    expect(received.path).toBe('/v1/traces');
    expect(received.contentType).toBe('application/x-protobuf');
    expect(received.headers['x-collector-key']).toBe('s3cret value');

    const [call] = callSpans(spans);
    expect(call).toMatchObject({ name: 'relay /v1/chat/completions', traceId: clientTrace, parentSpanId: clientSpan, scope: 'modelgate' });
    expect(call!.resource).toMatchObject({ 'service.name': 'gateway-under-test', 'service.version': 'test', 'deployment.environment': 'test' });
    await env.runtime.flush();
    const [log] = (await totals(env.context, { userId: user.id, tokenId: token.id })).logs;
    expect(call!.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': model,
      'gen_ai.request.stream': false,
      'gen_ai.response.model': model,
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'modelgate.protocol': 'openai',
      'modelgate.token_id': token.id,
      'modelgate.user_id': user.id,
      'modelgate.group': user.group,
      'modelgate.channel.id': channelId,
      'modelgate.channel.name': 'first upstream',
      'modelgate.attempts': 1,
      'modelgate.first_response_ms': expect.any(Number),
      'modelgate.quota': Number(log!.quota),
    });
    expect(Number(log!.quota)).toBe(Math.round(2 * (11 + 7 * 3)));
    expect(call!.status.code).toBe(0);

    const attempts = attemptsOf(spans, call!);
    expect(attempts).toHaveLength(1);
    const upstreamPort = Number(new URL(env.upstream.url).port);
    expect(attempts[0]).toMatchObject({ name: 'relay attempt #1', kind: CLIENT, traceId: clientTrace });
    expect(attempts[0]!.attributes).toEqual({
      'modelgate.channel.id': channelId,
      'modelgate.channel.name': 'first upstream',
      'modelgate.channel.type': 1,
      'modelgate.attempt': 1,
      'gen_ai.request.model': model,
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': upstreamPort,
      'http.response.status_code': 200,
      'modelgate.upstream.ttfb_ms': expect.any(Number),
    });
    expect(attempts[0]!.events.map((event) => event.name)).toEqual(['upstream.response_headers']);
    // The attempt lies within the call.
    expect(attempts[0]!.startNanos >= call!.startNanos && attempts[0]!.endNanos <= call!.endNanos).toBe(true);
    // No key, prompt or answer anywhere in what was sent.
    const sent = JSON.stringify(spans, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
    for (const secret of ['sk-one', token.key, 'must not be traced', 'Hello from']) expect(sent).not.toContain(secret);
  });

  it('times the first response at the headers, not at the end of a whole answer the relay reads first', async () => {
    const model = unique('trace-slow-body');
    const { user, token } = await payer(env, model);
    await seedChannel(env.context, { key: 'sk-slow-body', baseUrl: env.upstream.url, models: [model], groups: [user.group] });
    env.upstream.respond((_recorded, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      setTimeout(() => response.end(chatCompletionBody('late body')), 400);
    });
    const answer = await chat(env, token.apiKey, { model });
    expect(answer.status).toBe(200);
    const spans = await exported(env);
    const [call] = callSpans(spans);
    const [attempt] = attemptsOf(spans, call!);
    expect(attempt!.attributes['modelgate.upstream.ttfb_ms']).toBeLessThan(300);
    expect(call!.attributes['modelgate.first_response_ms']).toBeLessThan(300);
    await env.runtime.flush();
    const [log] = (await totals(env.context, { userId: user.id, tokenId: token.id })).logs;
    expect(JSON.parse(String(log!.other)).frt).toBeLessThan(300);
  });

  it('traces a stream to its end, its tokens from the final usage chunk', async () => {
    const model = unique('trace-stream');
    const { user, token } = await payer(env, model);
    await seedChannel(env.context, { key: 'sk-stream', baseUrl: env.upstream.url, models: [model], groups: [user.group] });

    // A traceparent that is not one is ignored: the call starts a trace of its own.
    const answer = await chat(env, token.apiKey, { model, stream: true, stream_options: { include_usage: true } }, { traceparent: 'not-a-trace' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('[DONE]');
    const spans = await exported(env);
    const [call] = callSpans(spans);
    expect(call!.parentSpanId).toBe('');
    expect(call!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(call!.attributes).toMatchObject({
      'gen_ai.request.stream': true,
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'http.response.status_code': 200,
    });
    expect(attemptsOf(spans, call!)).toHaveLength(1);
  });

  it('names the caller’s protocol: an Anthropic Messages call served by an OpenAI channel', async () => {
    const model = unique('trace-anthropic');
    const { user, token } = await payer(env, model);
    await seedChannel(env.context, { key: 'sk-converted', baseUrl: env.upstream.url, models: [model], groups: [user.group] });
    const response = await request(`${env.gateway}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': token.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.statusCode).toBe(200);
    await response.body.text();
    const [call] = callSpans(await exported(env));
    expect(call).toMatchObject({ name: 'relay /v1/messages' });
    expect(call!.attributes).toMatchObject({
      'http.route': '/v1/messages',
      'modelgate.protocol': 'anthropic',
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 11,
    });
  });

  it('gives each attempt its span: the failed first channel’s with its error kind and retried, then the one that served', async () => {
    const model = unique('trace-retry');
    const { user, token } = await payer(env, model);
    const broken = await seedChannel(env.context, { key: 'sk-broken', baseUrl: env.upstream.url, models: [model], groups: [user.group], priority: 10 });
    const working = await seedChannel(env.context, { key: 'sk-working', baseUrl: env.upstream.url, models: [model], groups: [user.group], priority: 0 });
    await setOption(env.context, 'RetryTimes', 1);
    env.upstream.respond((recorded, response) => {
      if (recorded.key === 'sk-broken') sendJson(response, 500, { error: { message: 'upstream exploded', type: 'server_error' } });
      else {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(chatStream(['ok'], true));
      }
    });

    const answer = await chat(env, token.apiKey, { model, stream: true, stream_options: { include_usage: true } });
    expect(answer.status).toBe(200);
    const spans = await exported(env);
    const [call] = callSpans(spans);
    expect(call!.attributes).toMatchObject({ 'modelgate.channel.id': working, 'modelgate.attempts': 2 });
    expect(call!.status.code).toBe(0);
    const [first, second] = attemptsOf(spans, call!);
    expect(first!.attributes).toMatchObject({
      'modelgate.channel.id': broken,
      'modelgate.attempt': 1,
      'http.response.status_code': 500,
      'error.type': expect.stringMatching(/^upstream:/),
      'modelgate.error.retryable': true,
      'modelgate.retried': true,
    });
    expect(first!.status).toEqual({ code: STATUS_ERROR, message: first!.attributes['error.type'] });
    expect(second!.attributes).toMatchObject({ 'modelgate.channel.id': working, 'modelgate.attempt': 2, 'http.response.status_code': 200 });
    expect(second!.attributes['error.type']).toBeUndefined();
    // Each span anchors its clock on Date.now() (whole milliseconds) when it starts: one
    // millisecond of leeway between two spans' clocks.
    expect(first!.endNanos <= second!.startNanos + 1_000_000n).toBe(true);
  });

  it('marks the last failed attempt not retried, and the call ERROR with the error the client got', async () => {
    const model = unique('trace-fail');
    const { user, token } = await payer(env, model);
    await seedChannel(env.context, { key: 'sk-down', baseUrl: env.upstream.url, models: [model], groups: [user.group] });
    env.upstream.respond((_recorded, response) => sendJson(response, 503, { error: { message: 'overloaded', type: 'server_error' } }));

    const answer = await chat(env, token.apiKey, { model });
    expect(answer.status).toBe(503);
    const spans = await exported(env);
    const [call] = callSpans(spans);
    expect(call!.status.code).toBe(STATUS_ERROR);
    expect(call!.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': expect.stringMatching(/^upstream:/), 'modelgate.attempts': 1 });
    expect(call!.attributes['modelgate.quota']).toBeUndefined();
    const [attempt] = attemptsOf(spans, call!);
    expect(attempt!.attributes).toMatchObject({ 'http.response.status_code': 503, 'modelgate.retried': false });
  });

  it('gives each key of a multi-key channel its attempt span when the upstream refuses the keys', async () => {
    const model = unique('trace-keys');
    const { user, token } = await payer(env, model);
    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    try {
      const created = await env.test.app.inject({
        method: 'POST',
        url: '/api/channel/',
        headers: await env.test.login(),
        payload: {
          mode: 'multi_to_single',
          multi_key_mode: 'polling',
          channel: { type: 1, name: 'two keys', key: 'sk-dead-one\nsk-dead-two', base_url: env.upstream.url, models: model, groups: [user.group], auto_ban: 1 },
        },
      });
      const channelId = (created.json() as { data: { id: number } }).data.id;
      env.upstream.respond((recorded, response) =>
        sendJson(response, 401, { error: { message: `Incorrect API key provided: ${recorded.key}`, type: 'invalid_request_error', code: 'invalid_api_key' } }),
      );

      const answer = await chat(env, token.apiKey, { model });
      expect(answer.status).toBe(401);
      const spans = await exported(env);
      const [call] = callSpans(spans);
      expect(call!.attributes).toMatchObject({ 'error.type': 'upstream:invalid_api_key', 'modelgate.attempts': 2, 'http.response.status_code': 401 });
      const attempts = attemptsOf(spans, call!);
      expect(attempts.map((span) => [span.attributes['modelgate.channel.id'], span.attributes['error.type'], span.attributes['modelgate.retried']])).toEqual([
        [channelId, 'upstream:invalid_api_key', true],
        [channelId, 'upstream:invalid_api_key', false],
      ]);
      const sent = JSON.stringify(spans, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
      expect(sent).not.toContain('sk-dead');
    } finally {
      await setOption(env.context, 'AutomaticDisableChannelEnabled', false);
    }
  });

  it('traces a call refused for the client’s mistake with its error kind and no attempt', async () => {
    const model = unique('trace-refused');
    const { user, token } = await payer(env, model, { modelLimits: ['another-model'] });
    await seedChannel(env.context, { key: 'sk-unused', baseUrl: env.upstream.url, models: [model], groups: [user.group] });

    const answer = await chat(env, token.apiKey, { model });
    expect(answer.status).toBe(403);
    const code = (JSON.parse(answer.text) as { error: { code: string } }).error.code;
    const spans = await exported(env);
    expect(spans).toHaveLength(1);
    const [call] = spans;
    expect(call!.kind).toBe(SERVER);
    expect(call!.status.code).toBe(STATUS_ERROR);
    expect(call!.attributes).toMatchObject({
      'http.response.status_code': 403,
      'modelgate.token_id': token.id,
      'gen_ai.request.model': model,
      'modelgate.error.type': expect.any(String),
      'modelgate.attempts': 0,
    });
    expect(String(call!.attributes['error.type']).endsWith(`:${code}`)).toBe(true);
    expect(env.upstream.requestsWithKey('sk-unused')).toHaveLength(0);
  });
});

describe('traces over OTLP/HTTP JSON', () => {
  it('posts JSON to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, and flushes what is queued when the app closes', async () => {
    const env = await startRelayTestEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/not-this-one',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Only the shutdown sends: the schedule is far beyond the test.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    try {
      const model = unique('trace-json');
      const { user, token } = await payer(env, model);
      await seedChannel(env.context, { key: 'sk-json', baseUrl: env.upstream.url, models: [model], groups: [user.group] });
      const answer = await chat(env, token.apiKey, { model });
      expect(answer.status).toBe(200);
      expect(receiver.exports).toHaveLength(0);
    } finally {
      await env.close();
    }
    const [received] = receiver.exports;
    expect(received).toMatchObject({ path: '/custom/traces', contentType: 'application/json' });
    const [call] = callSpans(received!.spans);
    expect(call!.resource['service.name']).toBe('modelgate');
    expect(call!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(call!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 11, 'modelgate.attempts': 1 });
    expect(attemptsOf(received!.spans, call!)).toHaveLength(1);
    receiver.clear();
  });
});

describe('traces off', () => {
  it.each([
    ['no endpoint', {}],
    ['OTEL_SDK_DISABLED', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'RECEIVER' }],
    ['OTEL_TRACES_EXPORTER=none', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'RECEIVER' }],
  ])('%s: no tracer or exporter is built and nothing is sent', async (_name, variables: Record<string, string>) => {
    const env = await startRelayTestEnv(Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, value.replace('RECEIVER', receiver.url)])));
    try {
      expect(env.context.tracing).toBeUndefined();
      const model = unique('trace-off');
      const { user, token } = await payer(env, model);
      await seedChannel(env.context, { key: 'sk-off', baseUrl: env.upstream.url, models: [model], groups: [user.group] });
      expect((await chat(env, token.apiKey, { model }, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })).status).toBe(200);
    } finally {
      await env.close();
    }
    expect(receiver.exports).toHaveLength(0);
  });
});

describe('sampling (OTEL_TRACES_SAMPLER)', () => {
  it('parentbased_always_off: records only the calls whose client trace is sampled', async () => {
    const env = await startRelayTestEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
    try {
      const model = unique('trace-sampled');
      const { user, token } = await payer(env, model);
      await seedChannel(env.context, { key: 'sk-sampled', baseUrl: env.upstream.url, models: [model], groups: [user.group] });
      const sampledTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
      expect((await chat(env, token.apiKey, { model })).status).toBe(200);
      expect((await chat(env, token.apiKey, { model }, { traceparent: '00-11111111111111111111111111111111-2222222222222222-00' })).status).toBe(200);
      expect((await chat(env, token.apiKey, { model }, { traceparent: `00-${sampledTrace}-00f067aa0ba902b7-01` })).status).toBe(200);
      const spans = await exported(env);
      expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([sampledTrace]));
      expect(spans.map((span) => span.kind).sort()).toEqual([SERVER, CLIENT]);
    } finally {
      await env.close();
      receiver.clear();
    }
  });
});

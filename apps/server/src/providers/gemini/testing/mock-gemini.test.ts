import { GoogleGenAI, Type } from '@google/genai';
import {
  chatRequestToGemini,
  geminiCodec,
  GeminiStreamDecoder,
  geminiResponseToChat,
  SseSplitter,
  type ChatChunk,
  type ChatCompletion,
} from '@modelgate/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalServer } from '../../../lib/testing/local-server.js';
import { startMockGemini, type MockGemini } from './mock-gemini.js';

const KEY = 'AIza-mock-key';
let mock: MockGemini;
let client: GoogleGenAI;

beforeAll(async () => {
  mock = await startMockGemini({ key: KEY });
  client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: mock.url } });
});
afterAll(() => mock.close());

describe('mock Gemini, called by the official @google/genai client', () => {
  it('answers generateContent with text and usage, receiving the key in x-goog-api-key', async () => {
    mock.setScript(() => ({ text: 'AI learns patterns from data.', usage: { input: 8, output: 6, cacheRead: 2 } }));
    const response = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Explain how AI works in a few words',
      config: { temperature: 0.5 },
    });
    expect(response.text).toBe('AI learns patterns from data.');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata).toEqual({ promptTokenCount: 10, candidatesTokenCount: 6, totalTokenCount: 16, cachedContentTokenCount: 2 });
    const received = mock.requests.at(-1)!;
    expect(received.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(received.headers['x-goog-api-key']).toBe(KEY);
    expect(received.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Explain how AI works in a few words' }] }],
      generationConfig: { temperature: 0.5 },
    });
  });

  it('streams with alt=sse: text in pieces, cumulative usage, the finish on the last chunk', async () => {
    mock.setScript(() => ({ text: 'The sky is blue.', thinking: 'Rayleigh.', usage: { input: 9, output: 12 }, pieceLength: 5 }));
    const texts: string[] = [];
    const thoughts: string[] = [];
    const totals: number[] = [];
    let finish: string | undefined;
    for await (const chunk of await client.models.generateContentStream({ model: 'gemini-2.5-pro', contents: 'Why is the sky blue?' })) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) (part.thought ? thoughts : texts).push(part.text ?? '');
      totals.push(chunk.usageMetadata?.totalTokenCount ?? 0);
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
    }
    expect(texts.join('')).toBe('The sky is blue.');
    expect(texts.length).toBeGreaterThan(1);
    expect(thoughts.join('')).toBe('Rayleigh.');
    expect(finish).toBe('STOP');
    // Cumulative, ending at prompt + output (thoughts: ceil(9 / 4) = 3 of the 12 output tokens).
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(totals.at(-1)).toBe(21);
    expect(mock.requests.at(-1)!.query).toMatchObject({ alt: 'sse' });
  });

  it('calls functions: the declared tools go up, the call comes back whole', async () => {
    mock.setScript(() => ({
      toolCalls: [{ name: 'schedule_meeting', arguments: { attendees: ['Bob', 'Alice'], topic: 'Q3 planning' } }],
      usage: { input: 40, output: 10 },
    }));
    const response = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Schedule a meeting with Bob and Alice about Q3 planning.',
      config: {
        tools: [
          {
            functionDeclarations: [
              {
                name: 'schedule_meeting',
                description: 'Schedules a meeting.',
                parameters: {
                  type: Type.OBJECT,
                  properties: { attendees: { type: Type.ARRAY, items: { type: Type.STRING } }, topic: { type: Type.STRING } },
                  required: ['attendees'],
                },
              },
            ],
          },
        ],
      },
    });
    expect(response.functionCalls).toEqual([{ name: 'schedule_meeting', args: { attendees: ['Bob', 'Alice'], topic: 'Q3 planning' } }]);
    expect(mock.requests.at(-1)!.body).toMatchObject({ tools: [{ functionDeclarations: [{ name: 'schedule_meeting' }] }] });
  });

  it('lists models and counts tokens', async () => {
    const names: string[] = [];
    for await (const model of await client.models.list()) names.push(model.name ?? '');
    expect(names).toEqual(['models/gemini-2.5-flash', 'models/gemini-2.5-pro']);
    const counted = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: 'twelve chars' });
    expect(counted.totalTokens).toBe(3);
  });

  it('refuses a wrong key (400 API_KEY_INVALID) and reports scripted failures in Google’s shape', async () => {
    const stranger = new GoogleGenAI({ apiKey: 'AIza-wrong', httpOptions: { baseUrl: mock.url } });
    await expect(stranger.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('API key not valid'),
    });
    mock.setScript(() => ({ status: 429, message: 'Resource has been exhausted (e.g. check quota).' }));
    await expect(client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).rejects.toMatchObject({ status: 429 });
  });
});

describe('mock Gemini over plain HTTP', () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': KEY }) =>
    fetch(`${mock.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('takes the key from ?key=, refuses a missing one with 403, and answers failures with Google’s status names', async () => {
    mock.setScript(() => ({ text: 'ok', usage: { input: 1, output: 1 } }));
    expect((await post(`/v1/models/gemini-2.5-flash:generateContent?key=${KEY}`, { contents: [{ parts: [{ text: 'hi' }] }] }, {})).status).toBe(200);
    const missing = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [] }, {});
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    mock.setScript(() => ({ status: 503, message: 'The model is overloaded. Please try again later.' }));
    const overloaded = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ parts: [{ text: 'hi' }] }] });
    expect(overloaded.status).toBe(503);
    expect(await overloaded.json()).toEqual({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
  });

  it('refuses what Google refuses: unknown fields, empty parts, JSON Schema keywords outside its Schema', async () => {
    const problem = async (body: unknown) =>
      ((await (await post('/v1beta/models/m:generateContent', body)).json()) as { error: { message: string } }).error.message;
    expect(await problem({ contents: [{ parts: [{ text: 'hi' }] }], model: 'x' })).toContain('Unknown name "model"');
    expect(await problem({ contents: [{ role: 'user', parts: [] }] })).toContain('must not be empty');
    expect(
      await problem({
        contents: [{ parts: [{ text: 'hi' }] }],
        tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', additionalProperties: false } }] }],
      }),
    ).toContain('Unknown name "additionalProperties"');
  });

  it('accepts what the codec sends from an OpenAI request, and its answers read back through the codec', async () => {
    mock.setScript(() => ({ text: 'Sunny.', toolCalls: [{ name: 'weather', arguments: { city: 'Paris' } }], usage: { input: 30, output: 8 } }));
    const { value } = chatRequestToGemini(
      {
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Paris?' },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 'weather', parameters: { $schema: 'x', type: 'object', additionalProperties: false, properties: { city: { type: 'string' } } } },
          },
        ],
        reasoning_effort: 'low',
      },
      { model: 'gemini-2.5-flash', defaultMaxTokens: 8192, safetyThreshold: () => 'OFF' },
    );
    const whole = await post('/v1beta/models/gemini-2.5-flash:generateContent', value);
    expect(whole.status).toBe(200);
    const completion = geminiResponseToChat((await whole.json()) as Record<string, unknown>, 'gemini-2.5-flash');
    expect(completion.choices[0]).toMatchObject({
      message: { content: 'Sunny.', tool_calls: [{ function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      finish_reason: 'tool_calls',
    });
    expect(completion.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 8 });

    const streamed = await post('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', value);
    const decoder = new GeminiStreamDecoder('gemini-2.5-flash');
    const chunks: ChatChunk[] = [];
    for (const event of new SseSplitter().push(Buffer.from(await streamed.arrayBuffer()))) chunks.push(...decoder.push(event.data));
    chunks.push(...decoder.finish());
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Sunny.');
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['tool_calls']);
    expect(chunks.filter((chunk) => chunk.usage)).toEqual([expect.objectContaining({ usage: { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 } })]);
  });

  it('answers streamGenerateContent without alt=sse as one JSON array', async () => {
    mock.setScript(() => ({ text: 'abcdefgh', usage: { input: 2, output: 2 } }));
    const response = await post('/v1beta/models/gemini-2.5-flash:streamGenerateContent', { contents: [{ parts: [{ text: 'hi' }] }] });
    const chunks = (await response.json()) as { candidates: { content: { parts: { text: string }[] } }[] }[];
    expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts[0]!.text)).toEqual(['abcd', 'efgh']);
  });
});

describe('the codec’s Gemini answers, read by the official @google/genai client', () => {
  const base = { id: 'chatcmpl-7', object: 'chat.completion.chunk' as const, created: 1, model: 'gpt-4o' };
  const stream: ChatChunk[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'Checking ' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'the weather.' }, finish_reason: null }] },
    {
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_w', type: 'function', function: { name: 'weather', arguments: '{"ci' } }] },
          finish_reason: null,
        },
      ],
    },
    { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    { ...base, choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } },
  ];
  const completion: ChatCompletion = {
    id: 'chatcmpl-8',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  };
  let server: LocalServer;
  beforeAll(async () => {
    server = await new LocalServer((request, response) => {
      if (request.url.includes(':streamGenerateContent')) {
        const encoder = geminiCodec.streamEncoder!('gpt-4o', { includeUsage: false });
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(stream.map((chunk) => encoder.push(chunk)).join('') + encoder.finish());
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(geminiCodec.responseFromCanonical!(completion)));
      }
    }).start();
  });
  afterAll(() => server.close());

  it('reads a whole answer and a stream with a function call and usage', async () => {
    const reader = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url } });
    const whole = await reader.models.generateContent({ model: 'gpt-4o', contents: 'hi' });
    expect(whole.text).toBe('Hello!');
    expect(whole.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 });
    let text = '';
    const calls: unknown[] = [];
    let usage: unknown;
    for await (const chunk of await reader.models.generateContentStream({ model: 'gpt-4o', contents: 'weather?' })) {
      text += chunk.text ?? '';
      calls.push(...(chunk.functionCalls ?? []));
      usage = chunk.usageMetadata ?? usage;
    }
    expect(text).toBe('Checking the weather.');
    expect(calls).toEqual([{ id: 'call_w', name: 'weather', args: { city: 'Oslo' } }]);
    expect(usage).toMatchObject({ promptTokenCount: 20, candidatesTokenCount: 9, totalTokenCount: 29 });
  });
});

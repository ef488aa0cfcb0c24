import { describe, expect, it } from 'vitest';
import { OpenAIStreamReader } from './stream-reader.js';

const chunk = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
const content = (text: string) => chunk({ choices: [{ index: 0, delta: { content: text } }], usage: null });
const usage = chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } });

function relay(reader: OpenAIStreamReader, parts: string[]): string {
  const out = parts.flatMap((part) => reader.push(Buffer.from(part)));
  const tail = reader.finish();
  return Buffer.concat(tail ? [...out, tail] : out).toString();
}

describe('OpenAIStreamReader', () => {
  it('forwards the very buffers of chunks holding whole events', () => {
    const reader = new OpenAIStreamReader('chat', true);
    const first = Buffer.from(content('Hel') + content('lo'));
    expect(reader.push(first)).toBe(first);
  });

  it('drops the usage-only event when asked, whatever the chunking, and keeps the usage', () => {
    const stream = content('Hel') + content('lo') + usage + 'data: [DONE]\n\n';
    for (const size of [1, 7, 50, stream.length]) {
      const parts = [];
      for (let offset = 0; offset < stream.length; offset += size) parts.push(stream.slice(offset, offset + size));
      const dropping = new OpenAIStreamReader('chat', true);
      expect(relay(dropping, parts)).toBe(stream.replace(usage, ''));
      expect(dropping.observation.usage).toEqual({ promptTokens: 3, completionTokens: 2 });
      const keeping = new OpenAIStreamReader('chat', false);
      expect(relay(keeping, parts)).toBe(stream);
    }
  });

  it('reads the text of a stream without usage at the end', () => {
    const reader = new OpenAIStreamReader('chat', true);
    relay(reader, [content('Hel'), content('lo'), 'data: [DONE]\n\n']);
    expect(reader.observation.usage).toBeUndefined();
    expect(reader.observation.textParts.join('')).toBe('Hello');
  });

  it('reads the usage events of a chunk of many, cutting only the usage-only one', () => {
    // Moonshot puts usage on the last choice: that event carries text too and is always kept.
    const onChoice = chunk({ choices: [{ index: 0, delta: { content: '!' }, usage: { prompt_tokens: 5, completion_tokens: 4 } }] });
    const stream = content('Hel') + onChoice + content('lo') + usage + 'data: [DONE]\n\n';
    const dropping = new OpenAIStreamReader('chat', true);
    expect(relay(dropping, [stream])).toBe(stream.replace(usage, ''));
    expect(dropping.observation.usage).toEqual({ promptTokens: 3, completionTokens: 2 });
    const keeping = new OpenAIStreamReader('chat', false);
    const whole = Buffer.from(stream);
    expect(keeping.push(whole)).toBe(whole);
    expect(keeping.observation.usage).toEqual({ promptTokens: 3, completionTokens: 2 });
  });

  it('reads usage events of every shape in a chunk of whole events: one data line (non-ASCII text too), named, without the space', () => {
    const onChoice = (text: string, prompt: number) =>
      chunk({ choices: [{ index: 0, delta: { content: text }, usage: { prompt_tokens: prompt, completion_tokens: 1 } }] });
    const cases: [string, string, number][] = [
      [onChoice('狐狸 ✓', 7), '狐狸 ✓', 7],
      [`event: message\n${onChoice('named', 8)}`, 'named', 8],
      [onChoice('tight', 9).replace('data: ', 'data:'), 'tight', 9],
    ];
    for (const [event, text, prompt] of cases) {
      const stream = content('Hel') + event + 'data: [DONE]\n\n';
      const reader = new OpenAIStreamReader('chat', true);
      expect(relay(reader, [stream])).toBe(stream);
      expect(reader.observation.usage).toEqual({ promptTokens: prompt, completionTokens: 1 });
      expect(reader.observation.textParts).toEqual([text]);
    }
  });

  it('counts the text of a last event that the upstream left without its blank line', () => {
    for (const last of ['data: {"choices":[{"delta":{"content":"lo"}}]}', 'event: x\ndata: {"choices":[{"delta":{"content":"lo"}}]}\n']) {
      const reader = new OpenAIStreamReader('chat', true);
      expect(relay(reader, [content('Hel'), last])).toBe(content('Hel') + last);
      expect(reader.observation.textParts.join('')).toBe('Hello');
    }
  });

  it('counts the text when the only usage mention is null', () => {
    const reader = new OpenAIStreamReader('chat', true);
    relay(reader, [content('Hel') + chunk({ choices: [], usage: null }) + content('lo') + 'data: [DONE]\n\n']);
    expect(reader.observation.usage).toBeUndefined();
    expect(reader.observation.textParts.join('')).toBe('Hello');
  });

  it('reads the text of held events of any shape, on short and on long streams, however they are cut', () => {
    const pieces = [
      content('狐狸 '),
      ': keep-alive\n\n',
      `event: message\n${content('relays ')}`,
      'data: {"choices":[{"delta":\ndata: {"content":"the "}}]}\n\n',
      content('message').replace(/\n/g, '\r\n'),
      content(' ✓ '),
    ];
    // Once: held to the end. Forty times (about 14 KB): read early, in 8 KiB batches.
    for (const repeat of [1, 40]) {
      const stream = `${pieces.join('').repeat(repeat)}data: [DONE]\n\n`;
      const bytes = Buffer.from(stream);
      for (const size of [bytes.length, 97, 7]) {
        const parts: Buffer[] = [];
        for (let offset = 0; offset < bytes.length; offset += size) parts.push(bytes.subarray(offset, offset + size));
        const reader = new OpenAIStreamReader('chat', true);
        const out = parts.flatMap((part) => reader.push(part));
        const tail = reader.finish();
        expect(Buffer.concat(tail ? [...out, tail] : out).toString(), `${repeat} x, ${size}-byte parts`).toBe(stream);
        expect(reader.observation.textParts.join(''), `${repeat} x, ${size}-byte parts`).toBe('狐狸 relays the message ✓ '.repeat(repeat));
      }
    }
  });
});

/**
 * Usage events of the shapes upstreams send: each must give the usage (or none), the text, the
 * error, and whether a client that did not ask for usage sees the event.
 */
describe('OpenAIStreamReader: usage chunks of every shape', () => {
  const openaiLast = {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    service_tier: 'default',
    system_fingerprint: 'fp_1',
    choices: [],
    usage: { prompt_tokens: 24, completion_tokens: 96, total_tokens: 120, prompt_tokens_details: { cached_tokens: 8, audio_tokens: 0 } },
  };
  const cases: [string, string, { usage: unknown; dropped: boolean; text: string; error?: string }][] = [
    ["OpenAI's, usage last", chunk(openaiLast), { usage: { promptTokens: 24, completionTokens: 96, cachedTokens: 8 }, dropped: true, text: '' }],
    [
      "a key after usage (OpenAI's obfuscation)",
      chunk({ ...openaiLast, obfuscation: 'x{"}]' }),
      { usage: { promptTokens: 24, completionTokens: 96, cachedTokens: 8 }, dropped: true, text: '' },
    ],
    [
      'usage before choices',
      chunk({ id: 'c', usage: { prompt_tokens: 5, completion_tokens: 1 }, choices: [] }),
      { usage: { promptTokens: 5, completionTokens: 1 }, dropped: true, text: '' },
    ],
    [
      'strings with braces, quotes and backslashes',
      chunk({ id: 'a"{[\\', choices: [], model: '}]}', usage: { prompt_tokens: 2, completion_tokens: 3, note: '"}' } }),
      { usage: { promptTokens: 2, completionTokens: 3 }, dropped: true, text: '' },
    ],
    [
      'usage with choices (Moonshot-style, on the choice)',
      chunk({ choices: [{ index: 0, delta: { content: 'hi' }, usage: { prompt_tokens: 4, completion_tokens: 1 } }] }),
      { usage: { promptTokens: 4, completionTokens: 1 }, dropped: false, text: 'hi' },
    ],
    [
      'empty choices inside another object, usage nested too',
      chunk({ x_vendor: { choices: [], usage: { prompt_tokens: 9, completion_tokens: 9 } }, choices: [{ index: 0, delta: { content: 'a' } }] }),
      { usage: undefined, dropped: false, text: 'a' },
    ],
    [
      'usage nested beside top-level empty choices',
      chunk({ choices: [], x_vendor: { usage: { prompt_tokens: 9, completion_tokens: 9 } } }),
      { usage: undefined, dropped: false, text: '' },
    ],
    [
      'an error beside usage',
      chunk({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 }, error: { message: 'quota' } }),
      { usage: { promptTokens: 1, completionTokens: 1 }, dropped: true, text: '', error: 'quota' },
    ],
    ['a usage object that counts nothing', chunk({ choices: [], usage: {} }), { usage: undefined, dropped: false, text: '' }],
    [
      'output/input token names',
      chunk({ choices: [], usage: { input_tokens: 7, output_tokens: 2 } }),
      { usage: { promptTokens: 7, completionTokens: 2 }, dropped: true, text: '' },
    ],
    [
      'two usage keys (the last wins, as in JSON.parse)',
      'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1},"usage":{"prompt_tokens":6,"completion_tokens":4}}\n\n',
      { usage: { promptTokens: 6, completionTokens: 4 }, dropped: true, text: '' },
    ],
    [
      'spaces after the colons',
      'data: {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}\n\n',
      { usage: { promptTokens: 3, completionTokens: 2 }, dropped: true, text: '' },
    ],
    ['broken JSON', 'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":\n\n', { usage: undefined, dropped: false, text: '' }],
  ];

  it.each(cases)('%s', (_name, event, expected) => {
    const stream = content('Hi') + event + 'data: [DONE]\n\n';
    const dropping = new OpenAIStreamReader('chat', true);
    const forwarded = relay(dropping, [stream]);
    expect(dropping.observation.usage).toEqual(expected.usage);
    expect(forwarded).toBe(expected.dropped ? stream.replace(event, '') : stream);
    // Text of events that mention usage is read as they come, before the held ones: order aside.
    if (expected.usage === undefined) expect([...dropping.observation.textParts].sort()).toEqual(['Hi', ...(expected.text ? [expected.text] : [])].sort());
    expect(dropping.observation.errorMessage).toBe(expected.error);
    const keeping = new OpenAIStreamReader('chat', false);
    expect(relay(keeping, [stream])).toBe(stream);
    expect(keeping.observation.usage).toEqual(expected.usage);
  });
});

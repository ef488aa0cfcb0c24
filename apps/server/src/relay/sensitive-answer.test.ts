import { OpenAIStreamReader } from '@modelgate/protocol';
import { describe, expect, it } from 'vitest';
import { WordMatcher } from '../domain/sensitive/word-matcher.js';
import type { StreamBytes } from '@modelgate/protocol';
import { checkAnswer, SensitiveStreamReader } from './sensitive-answer.js';
import { chatChunk, usageChunk } from './testing/mock-upstream.js';

const bytesOf = (bytes: StreamBytes | undefined): string =>
  bytes === undefined ? '' : Array.isArray(bytes) ? (bytes as readonly Buffer[]).map(String).join('') : String(bytes);

/** Feeds `stream` in pieces cut at `cuts`; returns what the client would receive and the reader. */
function relay(stream: string, cuts: number[], stop: boolean, words = ['secret', '机密']) {
  const reader = new SensitiveStreamReader(new OpenAIStreamReader('chat', false), 'chat', { matcher: new WordMatcher(words), stop });
  const bytes = Buffer.from(stream);
  let out = '';
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    out += bytesOf(reader.push(bytes.subarray(from, cut)));
    from = cut;
  }
  out += bytesOf(reader.finish());
  return { out, reader };
}

const contentOf = (sse: string) =>
  sse
    .split('\n\n')
    .map((event) => event.replace(/^data: /, ''))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => (JSON.parse(data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
    .join('');

const STREAM =
  chatChunk({ role: 'assistant', content: '' }) +
  chatChunk({ content: 'The sec' }) +
  chatChunk({ content: 'ret is 机' }) +
  chatChunk({ content: '密, a SECRET.' }) +
  chatChunk({}, 'stop') +
  usageChunk() +
  'data: [DONE]\n\n';

describe('SensitiveStreamReader', () => {
  it('masks the same text however the stream is cut into reads, even mid-character', () => {
    const whole = relay(STREAM, [], false);
    expect(contentOf(whole.out)).toBe('The sec**###** is 机**###**, a **###**.');
    expect(whole.reader.sensitiveWords).toEqual(['secret', '机密']);
    expect(whole.out.endsWith('data: [DONE]\n\n')).toBe(true);
    const length = Buffer.byteLength(STREAM);
    for (let cut = 1; cut < length; cut += 1) expect(relay(STREAM, [cut], false).out, `cut at ${cut}`).toBe(whole.out);
    for (let step = 3; step < 40; step += 7) {
      const cuts = Array.from({ length: Math.floor(length / step) }, (_, index) => (index + 1) * step);
      expect(relay(STREAM, cuts, false).out).toBe(whole.out);
    }
  });

  it('ends at the event that completes a word when told to stop: that event masked, then [DONE], then nothing', () => {
    const { out, reader } = relay(STREAM, [], true);
    expect(contentOf(out)).toBe('The sec**###** is 机');
    expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(reader.stopped).toBe(true);
    expect(bytesOf(reader.push(Buffer.from(chatChunk({ content: 'more' }))))).toBe('');
    // The observation saw the generated text as the upstream sent it, for billing.
    expect(reader.observation.textParts.join('')).toBe('The secret is 机');
  });

  it('passes events without words as the provider reader passes them, usage-only events dropped when asked', () => {
    const reader = new SensitiveStreamReader(new OpenAIStreamReader('chat', true), 'chat', { matcher: new WordMatcher(['secret']), stop: false });
    const clean = chatChunk({ content: 'hello' });
    expect(bytesOf(reader.push(Buffer.from(clean + usageChunk())))).toBe(clean);
    expect(reader.observation.usage).toBeDefined();
  });

  it('checks an unterminated last event too', () => {
    const { out } = relay(`${chatChunk({ content: 'a ' })}data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'secret' } }] })}`, [], false);
    expect(contentOf(out)).toBe('a **###**');
  });

  it('reads the text deltas of the responses API, not function-call arguments', () => {
    const reader = new SensitiveStreamReader(new OpenAIStreamReader('responses', false), 'responses', { matcher: new WordMatcher(['secret']), stop: true });
    const args = `event: response.function_call_arguments.delta\ndata: ${JSON.stringify({ type: 'response.function_call_arguments.delta', delta: '{"q":"secret"}' })}\n\n`;
    expect(bytesOf(reader.push(Buffer.from(args)))).toBe(args);
    const text = `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: 'the secret' })}\n\n`;
    const out = bytesOf(reader.push(Buffer.from(text)));
    expect(out).toContain('event: response.output_text.delta\ndata: ');
    expect(out).toContain('"delta":"the **###**"');
    expect(out).not.toContain('[DONE]');
    expect(reader.stopped).toBe(true);
  });
});

describe('checkAnswer', () => {
  it('masks content, text and reasoning of every choice without stop; only names the words with it', () => {
    const answer = () => ({
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'A Secret.', reasoning_content: 'secret stuff', tool_calls: [{ function: { arguments: '{"secret":1}' } }] },
        },
        { index: 1, text: 'no secrets here' },
      ],
    });
    const masked = answer();
    expect(checkAnswer({ matcher: new WordMatcher(['secret']), stop: false }, 'chat', masked)).toEqual(['secret']);
    expect(masked.choices[0]!.message!.content).toBe('A **###**.');
    expect(masked.choices[0]!.message!.reasoning_content).toBe('**###** stuff');
    expect(masked.choices[0]!.message!.tool_calls[0]!.function.arguments).toBe('{"secret":1}');
    expect(masked.choices[1]!.text).toBe('no **###**s here');
    const kept = answer();
    expect(checkAnswer({ matcher: new WordMatcher(['secret']), stop: true }, 'chat', kept)).toEqual(['secret']);
    expect(kept).toEqual(answer());
    expect(checkAnswer({ matcher: new WordMatcher(['other']), stop: false }, 'chat', answer())).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { SseSplitter } from '../sse/sse-splitter.js';
import { createStreamObservation, finishStreamObservation, mentionsUsage, observeStreamEvent, usageMentionAt } from './stream-observer.js';

const chunk = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

describe('observeStreamEvent', () => {
  it('collects text and the final usage of a chat stream, marking the usage-only chunk', () => {
    const stream =
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }], usage: null }) +
      chunk({ choices: [{ index: 0, delta: { content: 'lo', tool_calls: [{ function: { arguments: '{}' } }] } }], usage: null }) +
      chunk({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } }) +
      'data: [DONE]\n\n';
    const observation = createStreamObservation();
    const verdicts = new SseSplitter().push(Buffer.from(stream)).map((event) => observeStreamEvent('chat', observation, event));
    expect(verdicts.map((verdict) => verdict.usageOnly)).toEqual([false, false, true, false]);
    // With usage reported, the other events never need reading.
    finishStreamObservation('chat', observation);
    expect(observation.textParts).toEqual([]);
    expect(observation.usage).toEqual({ promptTokens: 7, completionTokens: 3 });
    expect(observation.done).toBe(true);
  });

  it('takes usage carried on a content chunk without marking it droppable', () => {
    const observation = createStreamObservation();
    const [event] = new SseSplitter().push(Buffer.from(chunk({ choices: [{ delta: { content: 'x' } }], usage: { prompt_tokens: 1, completion_tokens: 1 } })));
    expect(observeStreamEvent('chat', observation, event!).usageOnly).toBe(false);
    expect(observation.usage).toEqual({ promptTokens: 1, completionTokens: 1 });
  });

  it('reads Responses API deltas and the usage of response.completed', () => {
    const observation = createStreamObservation();
    const stream =
      'event: response.output_text.delta\n' +
      chunk({ type: 'response.output_text.delta', delta: 'Hi' }) +
      'event: response.completed\n' +
      chunk({ type: 'response.completed', response: { usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 } } });
    for (const event of new SseSplitter().push(Buffer.from(stream))) observeStreamEvent('responses', observation, event);
    finishStreamObservation('responses', observation);
    expect(observation.textParts).toEqual([]);
    expect(observation.usage).toEqual({ promptTokens: 5, completionTokens: 2 });
  });

  it('reads the text of a stream that reported no usage once it ended', () => {
    const observation = createStreamObservation();
    const stream = chunk({ choices: [{ delta: { content: 'a "usage": {} b' } }], usage: null }) + chunk({ choices: [{ delta: { reasoning_content: 'why' } }] });
    for (const event of new SseSplitter().push(Buffer.from(stream))) observeStreamEvent('chat', observation, event);
    expect(observation.textParts).toEqual([]);
    finishStreamObservation('chat', observation);
    expect(observation.textParts).toEqual(['a "usage": {} b', 'why']);
    expect(observation.usage).toBeUndefined();
  });

  it('reads held events early once they pass 8 KiB, so long streams keep only their text', () => {
    const observation = createStreamObservation();
    const splitter = new SseSplitter();
    for (let index = 0; index < 100; index += 1) {
      for (const event of splitter.push(Buffer.from(chunk({ choices: [{ delta: { content: `word${index} ` } }], padding: 'x'.repeat(100) })))) {
        observeStreamEvent('chat', observation, event);
      }
      expect(observation.unreadBytes).toBeLessThanOrEqual(8 * 1024);
    }
    finishStreamObservation('chat', observation);
    expect(observation.textParts.join('')).toBe(Array.from({ length: 100 }, (_, index) => `word${index} `).join(''));
  });

  it('notes an error object sent mid-stream', () => {
    const observation = createStreamObservation();
    const [event] = new SseSplitter().push(Buffer.from(chunk({ error: { message: 'overloaded' } })));
    observeStreamEvent('chat', observation, event!);
    finishStreamObservation('chat', observation);
    expect(observation.errorMessage).toBe('overloaded');
  });
});

describe('usageMentionAt', () => {
  it('finds a usage key with a value, however it is spaced, and passes over null ones', () => {
    const nulls = 'data: {"choices":[],"usage":null}\n\ndata: {"usage" : \tnull}\n\ndata: {"usage":\nnull}\n\n';
    expect(usageMentionAt(nulls, 0)).toBe(-1);
    for (const key of ['"usage":{', '"usage" : {', '"usage":\n {']) {
      const text = `${nulls}data: {"choices":[],${key}"prompt_tokens":1}}\n\n`;
      expect(usageMentionAt(text, 0)).toBe(text.indexOf('"usage"', nulls.length));
      expect(mentionsUsage(text)).toBe(true);
    }
  });

  it('ignores the word inside string values, where its quotes are escaped', () => {
    expect(usageMentionAt('data: {"choices":[{"delta":{"content":"say \\"usage\\": 5"}}]}\n\n', 0)).toBe(-1);
  });
});

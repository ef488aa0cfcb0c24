import { describe, expect, it } from 'vitest';
import type { OutboundContext } from '../convert/codec.js';
import type { ChatCompletion, ChatRequest } from '../openai/chat-types.js';
import { openaiCodec } from '../openai/openai-codec.js';
import { SseSplitter } from '../sse/sse-splitter.js';
import { responsesCodec } from './responses-codec.js';
import { parallelCallsAnswer, textAnswer, weatherTool } from './__fixtures__/responses-answers.js';
import { parallelCallsEvents, transcript } from './__fixtures__/responses-stream.js';

/**
 * A chat client served by a Responses-only upstream, through the codecs as the relay uses them:
 * the chat request to Responses, the upstream's answer (a documented one) back to chat, and the
 * next turn carrying the calls' results back with the same call ids.
 */

const context: OutboundContext = { model: 'gpt-4.1', defaultMaxTokens: 8192 };

const firstTurn: ChatRequest = {
  model: 'weather-bot',
  messages: [
    { role: 'system', content: 'You are a weather assistant.' },
    { role: 'user', content: 'What is the weather like in Paris and Bogotá?' },
  ],
  tools: [
    {
      type: 'function',
      function: { name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters, strict: true },
    },
  ],
  parallel_tool_calls: true,
  max_tokens: 512,
};

describe('chat → Responses → chat', () => {
  it('sends a request the Responses side reads back as the same conversation, and returns the answer as a chat completion', () => {
    const request = responsesCodec.requestFromCanonical!(firstTurn, context);
    expect(request.warnings).toEqual([]);
    expect(request.value).toMatchObject({ model: 'gpt-4.1', store: false, max_output_tokens: 512, parallel_tool_calls: true });
    // The inbound parser is strict about shapes: what it reads back is what the upstream gets.
    const readBack = responsesCodec.requestToCanonical!(request.value);
    expect(readBack.value.messages).toEqual(firstTurn.messages);
    expect(readBack.value.tools).toEqual(firstTurn.tools);
    expect(readBack.value.max_completion_tokens).toBe(512);

    const completion = responsesCodec.responseToCanonical!(parallelCallsAnswer, 'gpt-4.1');
    const forClient = openaiCodec.responseFromCanonical!(completion) as unknown as ChatCompletion;
    expect(forClient.choices[0]?.finish_reason).toBe('tool_calls');
    const calls = forClient.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((call) => [call.id, JSON.parse(call.function.arguments)])).toEqual([
      ['call_12345xyz', { latitude: 48.8566, longitude: 2.3522 }],
      ['call_67890abc', { latitude: 4.711, longitude: -74.0721 }],
    ]);
    expect(forClient.usage).toMatchObject({ prompt_tokens: 291, completion_tokens: 46, total_tokens: 337 });

    // The client runs both calls and sends the next turn: each output goes back under its call_id.
    const secondTurn: ChatRequest = {
      ...firstTurn,
      messages: [
        ...firstTurn.messages,
        { role: 'assistant', content: null, tool_calls: calls },
        { role: 'tool', tool_call_id: 'call_12345xyz', content: '14' },
        { role: 'tool', tool_call_id: 'call_67890abc', content: '19' },
      ],
    };
    const next = responsesCodec.requestFromCanonical!(secondTurn, context);
    expect((next.value.input as unknown[]).slice(1)).toEqual([
      { type: 'function_call', call_id: 'call_12345xyz', name: 'get_weather', arguments: '{"latitude":48.8566,"longitude":2.3522}' },
      { type: 'function_call', call_id: 'call_67890abc', name: 'get_weather', arguments: '{"latitude":4.711,"longitude":-74.0721}' },
      { type: 'function_call_output', call_id: 'call_12345xyz', output: '14' },
      { type: 'function_call_output', call_id: 'call_67890abc', output: '19' },
    ]);
    expect(responsesCodec.requestToCanonical!(next.value).value.messages).toEqual(secondTurn.messages);

    const final = openaiCodec.responseFromCanonical!(responsesCodec.responseToCanonical!(textAnswer, 'gpt-4.1')) as unknown as ChatCompletion;
    expect(final.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: textAnswer.output[0]!.content[0]!.text } });
  });

  it('streams: a Responses stream decoded and written as an OpenAI chat stream with usage and [DONE]', () => {
    const request = responsesCodec.requestFromCanonical!({ ...firstTurn, stream: true, stream_options: { include_usage: true } }, context);
    expect(request.value.stream).toBe(true);
    expect(request.value).not.toHaveProperty('stream_options');

    const decoder = responsesCodec.streamDecoder!('gpt-4.1');
    const encoder = openaiCodec.streamEncoder!('gpt-4.1', { includeUsage: true });
    const splitter = new SseSplitter();
    let out = '';
    for (const event of splitter.push(Buffer.from(transcript(parallelCallsEvents)))) {
      for (const chunk of decoder.push(event.data, event.event)) out += encoder.push(chunk);
    }
    for (const chunk of decoder.finish()) out += encoder.push(chunk);
    out += encoder.finish();

    const events = out.split('\n\n').filter((block) => block !== '');
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((block) => JSON.parse(block.slice('data: '.length)));
    const calls: Record<number, { id?: string; name?: string; arguments: string }> = {};
    for (const chunk of chunks) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        const entry = (calls[call.index] ??= { arguments: '' });
        if (call.id) entry.id = call.id;
        if (call.function?.name) entry.name = call.function.name;
        entry.arguments += call.function?.arguments ?? '';
      }
    }
    expect(Object.values(calls)).toEqual([
      { id: 'call_12345xyz', name: 'get_weather', arguments: '{"latitude":48.8566,"longitude":2.3522}' },
      { id: 'call_67890abc', name: 'get_weather', arguments: '{"latitude":4.711,"longitude":-74.0721}' },
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 291, completion_tokens: 46, total_tokens: 337 } });
  });
});

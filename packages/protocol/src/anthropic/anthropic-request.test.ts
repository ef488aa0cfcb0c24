import { describe, expect, it } from 'vitest';
import { ConversionError, type OutboundContext } from '../convert/codec.js';
import type { ChatRequest } from '../openai/chat-types.js';
import { anthropicRequestFromCanonical } from './anthropic-request-from-canonical.js';
import { anthropicRequestToCanonical } from './anthropic-request-to-canonical.js';
import { plainRequest, thinkingRequest, toolResultRequest, toolUseRequest, weatherTool } from './__fixtures__/anthropic-messages.js';

const context: OutboundContext = { model: 'claude-upstream', defaultMaxTokens: 8192 };

describe('anthropicRequestToCanonical', () => {
  it('turns the documented plain request into a system and a user message', () => {
    const { value, warnings } = anthropicRequestToCanonical(plainRequest);
    expect(value).toEqual({
      model: 'claude-3-7-sonnet-20250219',
      max_tokens: 1024,
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'Hello, world' },
      ],
    });
    expect(warnings).toEqual([]);
  });

  it('maps tools, tool_choice with disable_parallel_tool_use, and tool results (answers before the text that follows them)', () => {
    const tools = anthropicRequestToCanonical(toolUseRequest).value;
    expect(tools.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: weatherTool.description, parameters: weatherTool.input_schema } },
    ]);
    expect(tools.tool_choice).toBe('auto');
    expect(tools.parallel_tool_calls).toBe(false);

    const { value } = anthropicRequestToCanonical(toolResultRequest);
    expect(value.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: "I'll check the current weather in San Francisco for you.",
        tool_calls: [
          {
            id: 'toolu_01A09q90qw90lq917835lq9',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees' },
      { role: 'user', content: [{ type: 'text', text: 'Also, should I bring an umbrella?' }] },
    ]);
  });

  it('maps tool_choice any/tool/none, thinking to the nearest effort, stop_sequences, sampling, metadata and stream', () => {
    const base = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], tools: [weatherTool] };
    expect(anthropicRequestToCanonical({ ...base, tool_choice: { type: 'any' } }).value.tool_choice).toBe('required');
    expect(anthropicRequestToCanonical({ ...base, tool_choice: { type: 'tool', name: 'get_weather' } }).value.tool_choice).toEqual({
      type: 'function',
      function: { name: 'get_weather' },
    });
    expect(anthropicRequestToCanonical({ ...base, tool_choice: { type: 'none' } }).value.tool_choice).toBe('none');
    expect(anthropicRequestToCanonical(thinkingRequest).value.reasoning_effort).toBe('medium');
    expect(anthropicRequestToCanonical({ ...base, thinking: { type: 'enabled', budget_tokens: 1500 } }).value.reasoning_effort).toBe('low');
    expect(anthropicRequestToCanonical({ ...base, thinking: { type: 'enabled', budget_tokens: 32000 } }).value.reasoning_effort).toBe('high');
    const full = anthropicRequestToCanonical({
      ...base,
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      metadata: { user_id: 'u-1' },
      stream: true,
    }).value;
    expect(full).toMatchObject({ stop: ['END'], temperature: 0.5, top_p: 0.9, top_k: 40, user: 'u-1', stream: true, stream_options: { include_usage: true } });
  });

  it('converts images, PDFs and text documents, and keeps thinking as reasoning_content', () => {
    const { value, warnings } = anthropicRequestToCanonical({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0' }, title: 'a.pdf' },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'ok' },
          ],
        },
      ],
    });
    expect(value.messages[0]?.content).toEqual([
      { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0', filename: 'a.pdf' } },
      { type: 'text', text: 'plain words' },
    ]);
    expect(value.messages[1]).toEqual({ role: 'assistant', content: 'ok', reasoning_content: 'hmm' });
    expect(warnings).toEqual([]);
  });

  it('warns about what it drops: cache_control (once), server tools, redacted thinking, images inside tool results', () => {
    const { value, warnings } = anthropicRequestToCanonical({
      model: 'm',
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'xyz' },
            { type: 'tool_use', id: 't1', name: 'f', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              is_error: true,
              content: [
                { type: 'text', text: 'boom' },
                { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
              ],
            },
          ],
        },
      ],
    });
    expect(value.tools).toBeUndefined();
    expect(value.messages[0]).toEqual({ role: 'system', content: [{ type: 'text', text: 'sys' }] });
    expect(value.messages[3]).toEqual({ role: 'tool', tool_call_id: 't1', content: 'boom' });
    expect(warnings).toHaveLength(4);
    expect(warnings.filter((warning) => warning.startsWith('cache_control'))).toHaveLength(1);
    expect(warnings.join('\n')).toMatch(/web_search.*dropped/);
    expect(warnings.join('\n')).toMatch(/redacted_thinking dropped/);
    expect(warnings.join('\n')).toMatch(/tool_result content of type image dropped/);
  });

  it('takes what API version 2026-10-21 adds: system messages among the turns, adaptive thinking and effort, JSON output format', () => {
    const { value } = anthropicRequestToCanonical({
      model: 'm',
      max_tokens: 100,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'max', format: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'string' } } } } },
      messages: [
        { role: 'user', content: 'a' },
        { role: 'system', content: [{ type: 'text', text: 'Now answer in French.' }] },
        { role: 'user', content: 'b' },
      ],
    });
    expect(value.messages[1]).toEqual({ role: 'system', content: [{ type: 'text', text: 'Now answer in French.' }] });
    expect(value.reasoning_effort).toBe('high');
    expect(value.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema: { type: 'object', properties: { a: { type: 'string' } } }, strict: true },
    });
    expect(anthropicRequestToCanonical({ model: 'm', messages: [], thinking: { type: 'adaptive' } }).value.reasoning_effort).toBe('medium');
    expect(
      anthropicRequestToCanonical({ model: 'm', messages: [], thinking: { type: 'disabled' }, output_config: { effort: 'low' } }).value.reasoning_effort,
    ).toBeUndefined();
  });

  it('throws ConversionError with the place of the mistake for malformed requests', () => {
    expect(() => anthropicRequestToCanonical([] as unknown as Record<string, unknown>)).toThrow(ConversionError);
    expect(() => anthropicRequestToCanonical({ model: 'm', messages: 'hi' })).toThrow(/messages/);
    expect(() => anthropicRequestToCanonical({ messages: [] })).toThrow(/model/);
    expect(() => anthropicRequestToCanonical({ model: 'm', max_tokens: -1, messages: [] })).toThrow(/max_tokens/);
    expect(() => anthropicRequestToCanonical({ model: 'm', messages: [{ role: 'tool', content: 'x' }] })).toThrow(/messages\[0\]\.role/);
    expect(() => anthropicRequestToCanonical({ model: 'm', messages: [{ role: 'user', content: 5 }] })).toThrow(/messages\[0\]\.content/);
    expect(() => anthropicRequestToCanonical({ model: 'm', messages: [{ role: 'user', content: [{ text: 'no type' }] }] })).toThrow(
      /messages\[0\]\.content\[0\]/,
    );
  });
});

describe('anthropicRequestFromCanonical', () => {
  it('moves system and developer messages to system, merges tool answers into one user turn, and maps tool calls', () => {
    const request: ChatRequest = {
      model: 'gpt-like',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use metric units.' },
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
            { id: 'call:2', type: 'function', function: { name: 'get_weather', arguments: 'not json' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '20C' },
        { role: 'tool', tool_call_id: 'call:2', content: '25C' },
        { role: 'user', content: 'Thanks' },
      ],
    };
    const { value, warnings } = anthropicRequestFromCanonical(request, context);
    expect(value.model).toBe('claude-upstream');
    expect(value.max_tokens).toBe(8192);
    expect(value.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Use metric units.' },
    ]);
    expect(value.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '20C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: '25C' },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
    expect(warnings).toEqual(['tool call arguments that are not a JSON object sent as {}']);
  });

  it('converts images and PDFs, drops audio with a warning', () => {
    const { value, warnings } = anthropicRequestFromCanonical(
      {
        model: 'x',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
              { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
              { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0', filename: 'doc.pdf' } },
              { type: 'input_audio', input_audio: { data: 'AAA', format: 'wav' } },
            ],
          },
        ],
      },
      context,
    );
    expect(value.messages[0]?.content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0' }, title: 'doc.pdf' },
    ]);
    expect(warnings).toEqual(['input_audio dropped: Claude does not take audio']);
  });

  it('maps max tokens, stop, sampling, tool choice, parallel_tool_calls, user and stream, and warns about what Claude lacks', () => {
    const { value, warnings } = anthropicRequestFromCanonical(
      {
        model: 'x',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 100,
        max_completion_tokens: 200,
        stop: 'END',
        temperature: 0.3,
        top_p: 0.8,
        top_k: 5,
        tools: [{ type: 'function', function: { name: 'f' } }],
        tool_choice: 'required',
        parallel_tool_calls: false,
        user: 'user-7',
        stream: true,
        n: 2,
        seed: 1,
        presence_penalty: 0.5,
        frequency_penalty: 0.5,
        response_format: { type: 'json_object' },
        logprobs: true,
      },
      context,
    );
    expect(value).toEqual({
      model: 'claude-upstream',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'hi' }],
      stop_sequences: ['END'],
      temperature: 0.3,
      top_p: 0.8,
      top_k: 5,
      tools: [{ name: 'f', input_schema: { type: 'object', properties: {} } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      metadata: { user_id: 'user-7' },
      stream: true,
    });
    expect(warnings.map((warning) => warning.split(' ')[0])).toEqual(['response_format', 'n', 'seed', 'presence_penalty', 'frequency_penalty', 'logprobs']);
  });

  it('turns reasoning_effort (or the context budget) into thinking, raising max_tokens and dropping sampling', () => {
    const base: ChatRequest = { model: 'x', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 };
    const high = anthropicRequestFromCanonical({ ...base, reasoning_effort: 'high', max_tokens: 4000 }, context);
    expect(high.value.thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
    expect(high.value.max_tokens).toBe(28576);
    expect(high.value.temperature).toBeUndefined();
    expect(high.warnings).toEqual(['temperature, top_p and top_k dropped: Claude does not take them with thinking on']);
    const fromContext = anthropicRequestFromCanonical({ ...base, reasoning_effort: 'low' }, { ...context, thinkingBudgetTokens: 500 });
    expect(fromContext.value.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(fromContext.value.max_tokens).toBe(8192);
    const assistantThinking = anthropicRequestFromCanonical(
      {
        model: 'x',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b', reasoning_content: 'c' },
        ],
      },
      context,
    );
    expect(assistantThinking.value.messages[1]).toEqual({ role: 'assistant', content: 'b' });
    expect(assistantThinking.warnings[0]).toMatch(/reasoning_content/);
  });
});

describe('anthropicRequestFromCanonical: what Claude would refuse', () => {
  it('opens with a user turn and never sends empty user text (new-api\'s "..." placeholder)', () => {
    const { value } = anthropicRequestFromCanonical(
      {
        model: 'x',
        messages: [
          { role: 'assistant', content: 'Hello, how can I help?' },
          { role: 'user', content: '' },
        ],
      },
      context,
    );
    expect(value.messages).toEqual([
      { role: 'user', content: '...' },
      { role: 'assistant', content: 'Hello, how can I help?' },
      { role: 'user', content: '...' },
    ]);
  });

  it('uses adaptive thinking at the effort for Opus 4.7, which refuses budgets', () => {
    const { value } = anthropicRequestFromCanonical(
      { model: 'x', reasoning_effort: 'medium', top_p: 0.5, messages: [{ role: 'user', content: 'hi' }] },
      { ...context, model: 'claude-opus-4-7' },
    );
    expect(value.thinking).toEqual({ type: 'adaptive', display: 'summarized' });
    expect(value.output_config).toEqual({ effort: 'medium' });
    expect(value.max_tokens).toBe(8192);
    expect(value.top_p).toBeUndefined();
  });
});

describe('anthropicRequestFromCanonical: thinking inside a tool loop', () => {
  it('turns thinking off (with a warning) when the last assistant turn called tools and only their results follow', () => {
    const loop: ChatRequest = {
      model: 'x',
      reasoning_effort: 'medium',
      temperature: 0.4,
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'I should call it',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'w', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    };
    const inLoop = anthropicRequestFromCanonical(loop, context);
    expect(inLoop.value.thinking).toBeUndefined();
    expect(inLoop.value.temperature).toBe(0.4);
    expect(inLoop.warnings.some((warning) => warning.startsWith('thinking turned off'))).toBe(true);

    const nextTurn = anthropicRequestFromCanonical(
      { ...loop, messages: [...loop.messages, { role: 'assistant', content: 'Sunny.' }, { role: 'user', content: 'Thanks' }] },
      context,
    );
    expect(nextTurn.value.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
  });
});

describe('round trip Anthropic → canonical → Anthropic', () => {
  const roundTrip = (body: Record<string, unknown>) => {
    const canonical = anthropicRequestToCanonical(body).value;
    return anthropicRequestFromCanonical(canonical, { model: String(body.model), defaultMaxTokens: 4096 }).value;
  };

  it('keeps the documented requests as they were', () => {
    expect(roundTrip(plainRequest)).toEqual(plainRequest);
    expect(roundTrip(toolUseRequest)).toEqual(toolUseRequest);
    expect(roundTrip(toolResultRequest)).toEqual(toolResultRequest);
  });

  it('keeps thinking enabled (at the effort budget) and the system blocks', () => {
    const back = roundTrip({
      ...thinkingRequest,
      system: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    });
    expect(back.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(back.max_tokens).toBe(16000);
    expect(back.system).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    expect(back.messages).toEqual(thinkingRequest.messages);
  });
});

describe('anthropicRequestFromCanonical: cache_control from OpenAI-style clients', () => {
  it('carries the marker of system, user, tool-result and image parts and of tools to Claude (as new-api does)', () => {
    const marker = { type: 'ephemeral' as const };
    const hour = { type: 'ephemeral' as const, ttl: '1h' };
    const request: ChatRequest = {
      model: 'x',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'A long, stable system prompt.', cache_control: hour }] },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' }, cache_control: marker },
            { type: 'text', text: 'The long document.', cache_control: marker },
            { type: 'text', text: 'The question.' },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'A long tool answer.', cache_control: marker }] },
      ],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } }, cache_control: marker }],
    };
    const { value, warnings } = anthropicRequestFromCanonical(request, context);
    expect(value.system).toEqual([{ type: 'text', text: 'A long, stable system prompt.', cache_control: hour }]);
    expect(value.messages[0]!.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }, cache_control: marker },
      { type: 'text', text: 'The long document.', cache_control: marker },
      { type: 'text', text: 'The question.' },
    ]);
    expect(value.messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'A long tool answer.', cache_control: marker }] },
    ]);
    expect(value.tools).toEqual([{ name: 'lookup', input_schema: { type: 'object', properties: {} }, cache_control: marker }]);
    expect(warnings).toEqual([]);
  });

  it('leaves out a marker Claude would refuse', () => {
    const request: ChatRequest = {
      model: 'x',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'persistent' } as never }] }],
    };
    expect(anthropicRequestFromCanonical(request, context).value.messages[0]!.content).toEqual([{ type: 'text', text: 'hi' }]);
  });
});

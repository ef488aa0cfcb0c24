import { describe, expect, it } from 'vitest';
import type { OutboundContext } from '../convert/codec.js';
import type { ChatRequest } from '../openai/chat-types.js';
import { responsesRequestFromChat } from './responses-request-from-chat.js';
import { weatherTool } from './__fixtures__/responses-answers.js';

const context: OutboundContext = { model: 'gpt-5-codex', defaultMaxTokens: 8192 };

const chatWeatherTool = {
  type: 'function' as const,
  function: { name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters, strict: true },
};

describe('a chat request as a Responses request', () => {
  it('turns a tool-using conversation with images and a file into instructions and input items in order', () => {
    const request: ChatRequest = {
      model: 'asked-model',
      messages: [
        { role: 'system', content: 'You are a weather assistant.' },
        { role: 'developer', content: 'Answer in celsius.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is the weather where these photos were taken?' },
            { type: 'image_url', image_url: { url: 'https://example.com/paris.jpg', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'itinerary.pdf' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking both cities.',
          tool_calls: [
            { id: 'call_12345xyz', type: 'function', function: { name: 'get_weather', arguments: '{"latitude":48.8566,"longitude":2.3522}' } },
            { id: 'call_67890abc', type: 'function', function: { name: 'get_weather', arguments: '{"latitude":4.711,"longitude":-74.0721}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_12345xyz', content: '{"temperature":14}' },
        {
          role: 'tool',
          tool_call_id: 'call_67890abc',
          content: [
            { type: 'text', text: '{"temperature":' },
            { type: 'text', text: '19}' },
          ],
        },
        { role: 'user', content: 'Thanks!' },
      ],
      tools: [chatWeatherTool, { type: 'function', function: { name: 'now' } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: true,
      max_completion_tokens: 2048,
      temperature: 0.2,
      top_p: 0.9,
      user: 'user-1234',
      prompt_cache_key: 'session-7',
      stream: true,
      stream_options: { include_usage: true },
    };
    const { value, warnings } = responsesRequestFromChat(request, context);
    expect(value).toEqual({
      model: 'gpt-5-codex',
      instructions: 'You are a weather assistant.',
      input: [
        { type: 'message', role: 'developer', content: 'Answer in celsius.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is the weather where these photos were taken?' },
            { type: 'input_image', image_url: 'https://example.com/paris.jpg', detail: 'high' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
            { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'itinerary.pdf' },
          ],
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking both cities.' }] },
        { type: 'function_call', call_id: 'call_12345xyz', name: 'get_weather', arguments: '{"latitude":48.8566,"longitude":2.3522}' },
        { type: 'function_call', call_id: 'call_67890abc', name: 'get_weather', arguments: '{"latitude":4.711,"longitude":-74.0721}' },
        { type: 'function_call_output', call_id: 'call_12345xyz', output: '{"temperature":14}' },
        { type: 'function_call_output', call_id: 'call_67890abc', output: '{"temperature":19}' },
        { type: 'message', role: 'user', content: 'Thanks!' },
      ],
      store: false,
      stream: true,
      max_output_tokens: 2048,
      temperature: 0.2,
      top_p: 0.9,
      user: 'user-1234',
      parallel_tool_calls: true,
      prompt_cache_key: 'session-7',
      tools: [
        { type: 'function', name: 'get_weather', description: weatherTool.description, parameters: weatherTool.parameters, strict: true },
        // A chat tool without parameters or strict: an empty object schema, and not strict (chat's default).
        { type: 'function', name: 'now', parameters: { type: 'object', properties: {} }, strict: false },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    expect(warnings).toEqual([]);
  });

  it('maps every tool_choice, reasoning_effort, both response formats and verbosity', () => {
    const base: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [chatWeatherTool] };
    const choice = (tool_choice: ChatRequest['tool_choice']) => responsesRequestFromChat({ ...base, tool_choice }, context).value.tool_choice;
    expect([choice('auto'), choice('none'), choice('required'), choice({ type: 'function', function: { name: 'get_weather' } })]).toEqual([
      'auto',
      'none',
      'required',
      { type: 'function', name: 'get_weather' },
    ]);
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const structured = responsesRequestFromChat(
      {
        ...base,
        reasoning_effort: 'minimal',
        verbosity: 'low',
        response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
      },
      context,
    ).value;
    expect(structured.reasoning).toEqual({ effort: 'minimal' });
    expect(structured.text).toEqual({ format: { type: 'json_schema', name: 'city', schema, strict: true }, verbosity: 'low' });
    expect(responsesRequestFromChat({ ...base, response_format: { type: 'json_object' } }, context).value.text).toEqual({ format: { type: 'json_object' } });
    expect(responsesRequestFromChat({ ...base, response_format: { type: 'text' } }, context).value.text).toBeUndefined();
  });

  it('takes max_tokens when max_completion_tokens is absent, lowers it to the output cap, sets the cap alone, and raises it to 16', () => {
    const ask = (fields: Partial<ChatRequest>, outputCap?: number) =>
      responsesRequestFromChat({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...fields }, { ...context, outputCap });
    expect(ask({ max_tokens: 300 }).value.max_output_tokens).toBe(300);
    expect(ask({ max_tokens: 300, max_completion_tokens: 500 }).value.max_output_tokens).toBe(500);
    expect(ask({ max_completion_tokens: 4096 }, 1000).value.max_output_tokens).toBe(1000);
    expect(ask({ max_completion_tokens: 200 }, 1000).value.max_output_tokens).toBe(200);
    expect(ask({}, 700).value.max_output_tokens).toBe(700);
    expect(ask({}).value).not.toHaveProperty('max_output_tokens');
    const tiny = ask({ max_tokens: 5 });
    expect(tiny.value.max_output_tokens).toBe(16);
    expect(tiny.warnings).toEqual(["max_output_tokens raised from 5 to 16, the Responses API's minimum"]);
  });

  it('drops what Responses cannot carry, naming each, and never throws: reasoning_content, n, stop, seed, penalties, logprobs, audio, unknown fields', () => {
    const request: ChatRequest = {
      model: 'm',
      messages: [
        { role: 'system', content: 'First.' },
        { role: 'system', content: 'Second.' },
        { role: 'user', name: 'alice', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] },
        { role: 'assistant', content: 'Earlier answer.', reasoning_content: 'My earlier thinking.' },
        { role: 'tool', content: 'orphan result' },
        { role: 'user', content: 'Go on.' },
      ],
      n: 2,
      stop: ['\n\n'],
      seed: 42,
      presence_penalty: 0.5,
      frequency_penalty: 0,
      logprobs: true,
      top_logprobs: 3,
      logit_bias: { '50256': -100 },
      store: true,
      modalities: ['text'],
      tool_choice: 'required',
    };
    const { value, warnings } = responsesRequestFromChat(request, context);
    expect(value).toEqual({
      model: 'gpt-5-codex',
      instructions: 'First.',
      input: [
        { type: 'message', role: 'developer', content: 'Second.' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Earlier answer.' }] },
        { type: 'message', role: 'user', content: 'Go on.' },
      ],
      store: false,
    });
    expect(warnings).toEqual([
      'message name dropped: the Responses API has no speaker names',
      'input_audio dropped: the Responses API takes no audio input',
      'reasoning_content in the history dropped: a Responses upstream takes back only its own reasoning items (with their id), which a chat history does not carry',
      'tool message without tool_call_id dropped: a function_call_output needs the call it answers',
      'store dropped: the gateway keeps no upstream state (store: false)',
      'tool_choice dropped: the request has no function tools',
      'n dropped: the Responses API returns one answer',
      'stop dropped: the Responses API takes no stop sequences',
      'seed dropped: the Responses API takes no seed',
      'presence_penalty dropped: the Responses API has no equivalent',
      'logprobs dropped: log probabilities cannot be carried back into a chat answer from here',
      'top_logprobs dropped: log probabilities cannot be carried back into a chat answer from here',
      'logit_bias dropped: the Responses API has no equivalent',
      'modalities dropped: the Responses API has no equivalent',
    ]);
  });

  it('keeps a system prompt given as text parts, and an assistant turn of only tool calls as function_call items', () => {
    const { value, warnings } = responsesRequestFromChat(
      {
        model: 'm',
        messages: [
          {
            role: 'system',
            content: [
              { type: 'text', text: 'Be ' },
              { type: 'text', text: 'brief.' },
            ],
          },
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        ],
      },
      context,
    );
    expect(value.instructions).toBe('Be brief.');
    expect(value.input).toEqual([
      { type: 'message', role: 'user', content: 'Weather in Paris?' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' },
    ]);
    expect(warnings).toEqual([]);
  });
});

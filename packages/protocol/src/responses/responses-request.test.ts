import { describe, expect, it } from 'vitest';
import { ConversionError } from '../convert/codec.js';
import { responsesRequestToChat } from './responses-request.js';

describe('a Responses request as a chat request', () => {
  it('turns a Codex turn (instructions, a user message, reasoning, parallel calls and their outputs) into chat messages in order', () => {
    const { value, warnings } = responsesRequestToChat({
      model: 'gpt-5-codex',
      instructions: 'You are a coding agent.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Sandbox: workspace-write.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read a.txt and b.txt' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'I should read both files.' }], encrypted_content: 'gAAAA...' },
        { type: 'function_call', call_id: 'call_a', name: 'shell', arguments: '{"command":["cat","a.txt"]}' },
        { type: 'function_call', call_id: 'call_b', name: 'shell', arguments: '{"command":["cat","b.txt"]}' },
        { type: 'function_call_output', call_id: 'call_a', output: 'alpha' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: 'beta' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a says alpha, b says beta.' }] },
      ],
      tools: [
        {
          type: 'function',
          name: 'shell',
          description: 'Runs a command',
          parameters: { type: 'object', properties: { command: { type: 'array' } } },
          strict: false,
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { effort: 'high', summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
    });
    expect(value.messages).toEqual([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'developer', content: [{ type: 'text', text: 'Sandbox: workspace-write.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Read a.txt and b.txt' }] },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'I should read both files.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'shell', arguments: '{"command":["cat","a.txt"]}' } },
          { id: 'call_b', type: 'function', function: { name: 'shell', arguments: '{"command":["cat","b.txt"]}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'alpha' },
      { role: 'tool', tool_call_id: 'call_b', content: 'beta' },
      { role: 'assistant', content: 'a says alpha, b says beta.' },
    ]);
    expect(value).toMatchObject({
      model: 'gpt-5-codex',
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'shell', description: 'Runs a command', strict: false } }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning_effort: 'high',
      prompt_cache_key: 'session-1',
    });
    expect(warnings).toEqual(['input[2].encrypted_content', 'include']);
  });

  it('carries a plain string input, the output limit, images, files and a JSON schema format', () => {
    const { value, warnings } = responsesRequestToChat({
      model: 'claude-sonnet-4',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this picture?' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
            { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
          ],
        },
      ],
      max_output_tokens: 500,
      temperature: 0.2,
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
    });
    expect(value.messages[0]!.content).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
      { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
    ]);
    expect(value).toMatchObject({
      max_completion_tokens: 500,
      temperature: 0.2,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
    });
    expect(value.stream).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(responsesRequestToChat({ model: 'm', input: 'hi' }).value.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('names what it drops: built-in tools, tool results without a chat form, images by file id', () => {
    const { value, warnings } = responsesRequestToChat({
      model: 'gemini-2.5-pro',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_image', file_id: 'file-1' },
            { type: 'input_text', text: 'hi' },
          ],
        },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
      ],
      tools: [{ type: 'web_search' }, { type: 'function', name: 'f' }],
      tool_choice: { type: 'web_search' },
    });
    expect(value.tools).toEqual([{ type: 'function', function: { name: 'f' } }]);
    expect(value.tool_choice).toBeUndefined();
    expect(warnings).toEqual(['input[0].content[0] (image by file_id)', 'input[1] (web_search_call)', 'tools[0] (web_search)', 'tool_choice']);
  });

  it('refuses what is not a request, and previous_response_id rather than ignoring it', () => {
    expect(() => responsesRequestToChat([])).toThrow(ConversionError);
    expect(() => responsesRequestToChat({ input: 'hi' })).toThrow('model is required');
    expect(() => responsesRequestToChat({ model: 'm', input: 5 })).toThrow('input must be a string or an array');
    expect(() => responsesRequestToChat({ model: 'm', input: [{ role: 'robot', content: 'x' }] })).toThrow('input[0].role');
    expect(() => responsesRequestToChat({ model: 'm', input: [{ type: 'function_call', name: 'f' }] })).toThrow('needs call_id and name');
    expect(() => responsesRequestToChat({ model: 'm', input: 'hi', max_output_tokens: 0 })).toThrow('max_output_tokens');
    expect(() => responsesRequestToChat({ model: 'm', input: 'hi', previous_response_id: 'resp_1' })).toThrow('previous_response_id is not supported');
  });
});

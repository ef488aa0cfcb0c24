import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConversionError, type OutboundContext } from '../convert/codec.js';
import type { ChatRequest } from '../openai/chat-types.js';
import { geminiCodec } from './gemini-codec.js';
import { chatRequestToGemini, GEMINI_SKIP_THOUGHT_SIGNATURE } from './gemini-request-from-chat.js';
import { geminiRequestToChat } from './gemini-request-to-chat.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const context: OutboundContext = { model: 'gemini-2.5-flash', defaultMaxTokens: 8192 };

describe('geminiRequestToChat', () => {
  it('reads the documented text request: snake_case system instruction, generation config, thinking off', () => {
    const { value, warnings } = geminiRequestToChat(fixture('text-request.json'));
    expect(value).toEqual({
      model: '',
      messages: [
        { role: 'system', content: 'You are a cat. Your name is Neko.' },
        { role: 'user', content: 'Explain how AI works in a few words' },
      ],
      stop: ['Title'],
      temperature: 1,
      top_p: 0.8,
      top_k: 10,
      max_tokens: 800,
    });
    expect(value.reasoning_effort).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('reads the documented function calling request: tools and a forced function', () => {
    const { value } = geminiRequestToChat(fixture('function-call-request.json'));
    expect(value.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'schedule_meeting',
          description: 'Schedules a meeting with specified attendees at a given time and date.',
          parameters: expect.objectContaining({ type: 'object', required: ['attendees', 'date', 'time', 'topic'] }),
        },
      },
    ]);
    expect(value.tool_choice).toEqual({ type: 'function', function: { name: 'schedule_meeting' } });
  });

  it('pairs a functionResponse with the earlier call by name and gives the call a deterministic id', () => {
    const { value, warnings } = geminiRequestToChat(fixture('function-result-request.json'));
    expect(value.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1_0',
          type: 'function',
          function: { name: 'schedule_meeting', arguments: '{"attendees":["Bob","Alice"],"date":"2025-03-27","time":"10:00","topic":"Q3 planning"}' },
        },
      ],
    });
    expect(value.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_1_0', content: '{"result":"Meeting scheduled."}' });
    expect(warnings).toEqual([]);
  });

  it('matches responses by id first, and by name to the latest unanswered call', () => {
    const { value } = geminiRequestToChat({
      contents: [
        { role: 'user', parts: [{ text: 'weather in two cities' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'weather', args: { city: 'Paris' } } }, { functionCall: { id: 'w-2', name: 'weather', args: { city: 'Rome' } } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'w-2', name: 'weather', response: { temp: 20 } } },
            { functionResponse: { name: 'weather', response: { temp: 15 } } },
          ],
        },
      ],
    });
    expect(value.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'w-2', content: '{"temp":20}' },
      { role: 'tool', tool_call_id: 'call_1_0', content: '{"temp":15}' },
    ]);
  });

  it('carries media, thoughts and the other generation settings', () => {
    const { value, warnings } = geminiRequestToChat({
      contents: [
        {
          parts: [
            { text: 'What is in these?' },
            { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
            { inlineData: { mimeType: 'audio/mp3', data: 'SUQz' } },
            { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
            { fileData: { mimeType: 'video/mp4', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
          ],
        },
        { role: 'model', parts: [{ text: 'Let me look.', thought: true }, { text: 'A cat.' }] },
      ],
      generationConfig: {
        candidateCount: 2,
        seed: 7,
        presencePenalty: 0.5,
        frequencyPenalty: 0.25,
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { name: { type: 'STRING', nullable: true } } },
        thinkingConfig: { thinkingBudget: 20000, includeThoughts: true },
        responseModalities: ['TEXT'],
      },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    });
    expect(value.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is in these?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=' } },
        { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        { type: 'file', file: { file_id: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
      ],
    });
    expect(value.messages[1]).toEqual({ role: 'assistant', content: 'A cat.', reasoning_content: 'Let me look.' });
    expect(value).toMatchObject({ n: 2, seed: 7, presence_penalty: 0.5, frequency_penalty: 0.25, reasoning_effort: 'high' });
    expect(value.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: { type: 'object', properties: { name: { type: ['string', 'null'] } } } },
    });
    expect(warnings).toEqual(['generationConfig: responseModalities has no OpenAI equivalent and was dropped']);
  });

  it('maps thinking budgets to the nearest effort (-1 is medium, 0 none) and the calling modes to tool_choice', () => {
    const effort = (thinkingBudget: number) =>
      geminiRequestToChat({ contents: [], generationConfig: { thinkingConfig: { thinkingBudget } } }).value.reasoning_effort;
    expect([effort(-1), effort(0), effort(512), effort(6000), effort(32768)]).toEqual(['medium', undefined, 'low', 'medium', 'high']);
    const choice = (functionCallingConfig: Record<string, unknown>) =>
      geminiRequestToChat({ contents: [], toolConfig: { functionCallingConfig } }).value.tool_choice;
    expect([choice({ mode: 'AUTO' }), choice({ mode: 'NONE' }), choice({ mode: 'ANY' })]).toEqual(['auto', 'none', 'required']);
  });

  it('reads Gemini 3 thinkingLevel as the effort, and warns for model parts and fields it drops', () => {
    const { value, warnings } = geminiRequestToChat({
      contents: [
        { role: 'user', parts: [{ text: 'Run it' }] },
        { role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }, { text: 'Done.', thoughtSignature: 'c2ln' }] },
      ],
      cachedContent: 'cachedContents/abc',
      generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true } },
    });
    expect(value.reasoning_effort).toBe('high');
    expect(value.messages[1]).toEqual({ role: 'assistant', content: 'Done.' });
    expect(warnings).toEqual([
      'contents[1].parts[0]: a model part of this kind has no OpenAI equivalent and was dropped',
      'cachedContent has no OpenAI equivalent and was dropped',
    ]);
  });

  it('drops built-in tools with a warning and reads parametersJsonSchema as is', () => {
    const { value, warnings } = geminiRequestToChat({
      contents: [{ parts: [{ text: 'hi' }] }],
      tools: [
        { googleSearch: {} },
        { codeExecution: {} },
        { functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object', additionalProperties: false } }] },
      ],
    });
    expect(value.tools).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'object', additionalProperties: false } } }]);
    expect(warnings).toEqual([
      'tools: the googleSearch tool has no OpenAI equivalent and was dropped',
      'tools: the codeExecution tool has no OpenAI equivalent and was dropped',
    ]);
  });

  it('refuses what is not a request with a ConversionError naming the problem', () => {
    expect(() => geminiCodec.requestToCanonical!({} as Record<string, unknown>)).toThrow(ConversionError);
    expect(() => geminiRequestToChat({})).toThrow(/contents/);
    expect(() => geminiRequestToChat({ contents: 'hello' })).toThrow(/contents must be an array/);
    expect(() => geminiRequestToChat({ contents: [{ role: 'user' }] })).toThrow(/contents\[0\]\.parts/);
    expect(() => geminiRequestToChat([] as unknown as Record<string, unknown>)).toThrow(ConversionError);
  });
});

describe('chatRequestToGemini', () => {
  const conversation: ChatRequest = {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather here?' },
          { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } },
          { type: 'image_url', image_url: { url: 'https://example.com/photo.png?size=large' } },
          { type: 'image_url', image_url: { url: 'https://example.com/photo' } },
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'They want the weather.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'time', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"temp":21}' },
      { role: 'tool', tool_call_id: 'call_b', content: '10:00' },
      { role: 'user', content: 'Thanks' },
    ],
  };

  it('builds contents with merged tool results, system instruction and media parts', () => {
    const { value, warnings } = chatRequestToGemini(conversation, context);
    expect(value).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Use metric units.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Weather here?' },
            { inlineData: { mimeType: 'image/webp', data: 'UklGRg==' } },
            { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/photo.png?size=large' } },
            { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photo' } },
            { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
          ],
        },
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: GEMINI_SKIP_THOUGHT_SIGNATURE },
            { functionCall: { name: 'time', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'weather', response: { temp: 21 } } },
            { functionResponse: { name: 'time', response: { content: '10:00' } } },
            { text: 'Thanks' },
          ],
        },
      ],
    });
    // The assistant's reasoning_content has no Gemini form: dropped, and said so.
    expect(warnings).toEqual([
      'reasoning_content in the history dropped: Gemini replays only its own thought signatures',
      'messages[3].tool_calls[1]: arguments are not valid JSON; sent as {}',
    ]);
  });

  it('sets tools with cleaned schemas, tool choice, generation config, thinking and safety settings', () => {
    const request: ChatRequest = {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Looks up a thing',
            parameters: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              additionalProperties: false,
              properties: { q: { type: 'string', format: 'uri' } },
              required: ['q'],
            },
          },
        },
        { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
      ],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 100,
      max_completion_tokens: 200,
      stop: 'END',
      n: 1,
      seed: 3,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'integer', const: 1 } } } } },
      reasoning_effort: 'low',
      parallel_tool_calls: false,
      user: 'u-1',
      logprobs: true,
    };
    const { value, warnings } = chatRequestToGemini(request, {
      ...context,
      safetyThreshold: (category) => (category === 'HARM_CATEGORY_CIVIC_INTEGRITY' ? 'BLOCK_NONE' : 'OFF'),
    });
    expect(value.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'lookup', description: 'Looks up a thing', parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } }, required: ['q'] } },
          { name: 'now' },
        ],
      },
    ]);
    expect(value.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] } });
    expect(value.generationConfig).toEqual({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 200,
      stopSequences: ['END'],
      candidateCount: 1,
      seed: 3,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { a: { type: 'INTEGER' } } },
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    expect(value.safetySettings).toEqual([
      { category: 'HARM_CATEGORY_HARASSMENT', threshold: 'OFF' },
      { category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'OFF' },
      { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', threshold: 'OFF' },
      { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', threshold: 'OFF' },
      { category: 'HARM_CATEGORY_CIVIC_INTEGRITY', threshold: 'BLOCK_NONE' },
    ]);
    expect(value).not.toHaveProperty('model');
    expect(warnings).toEqual([
      'parallel_tool_calls has no Gemini equivalent and was dropped',
      'logprobs has no Gemini equivalent and was dropped',
      'user has no Gemini equivalent and was dropped',
    ]);
  });

  it('sends a conversation of system text alone as the user turn (Gemini refuses empty contents)', () => {
    const { value, warnings } = chatRequestToGemini({ model: 'm', messages: [{ role: 'system', content: 'Say hi.' }] }, context);
    expect(value).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Say hi.' }] }] });
    expect(warnings).toEqual(['no user or assistant messages: the system text was sent as the user turn']);
  });

  it('prefers the thinking budget the model name asked for, and maps each tool_choice string', () => {
    const base: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' };
    expect(chatRequestToGemini(base, { ...context, thinkingBudgetTokens: 3000 }).value.generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 3000, includeThoughts: true },
    });
    const mode = (tool_choice: ChatRequest['tool_choice']) =>
      (chatRequestToGemini({ model: 'm', messages: [], tool_choice }, context).value.toolConfig as { functionCallingConfig: unknown }).functionCallingConfig;
    expect([mode('none'), mode('auto'), mode('required')]).toEqual([{ mode: 'NONE' }, { mode: 'AUTO' }, { mode: 'ANY' }]);
  });

  it('round-trips the documented function calling conversation through the canonical shape', () => {
    const original = fixture('function-result-request.json');
    const canonical = geminiRequestToChat(original).value;
    const { value } = chatRequestToGemini(canonical, context);
    const contents = value.contents as { role: string; parts: Record<string, unknown>[] }[];
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1]!.parts[0]!.functionCall).toEqual((original.contents as { parts: { functionCall?: unknown }[] }[])[1]!.parts[0]!.functionCall);
    expect(contents[2]!.parts).toEqual([{ functionResponse: { name: 'schedule_meeting', response: { result: 'Meeting scheduled.' } } }]);
  });
});

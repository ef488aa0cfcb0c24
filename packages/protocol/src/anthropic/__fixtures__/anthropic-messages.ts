/**
 * Anthropic Messages API examples, written from Anthropic's documentation:
 * - plain: https://docs.anthropic.com/en/api/messages (the example request and response)
 * - tools: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 *   (the get_weather example, its tool_use answer and the tool_result follow-up)
 * - thinking: https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 * - error: https://docs.anthropic.com/en/api/errors (the error shape, overloaded_error)
 * The ids, texts and counts are the documents'; signatures are shortened.
 */

export const plainRequest = {
  model: 'claude-3-7-sonnet-20250219',
  max_tokens: 1024,
  system: 'You are a helpful assistant.',
  messages: [{ role: 'user', content: 'Hello, world' }],
};

export const plainResponse = {
  content: [{ text: 'Hi! My name is Claude.', type: 'text' }],
  id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
  model: 'claude-3-7-sonnet-20250219',
  role: 'assistant',
  stop_reason: 'end_turn',
  stop_sequence: null,
  type: 'message',
  usage: { input_tokens: 2095, output_tokens: 503 },
};

export const weatherTool = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  input_schema: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'The unit of temperature, either "celsius" or "fahrenheit"' },
    },
    required: ['location'],
  },
};

export const toolUseRequest = {
  model: 'claude-3-7-sonnet-20250219',
  max_tokens: 1024,
  tools: [weatherTool],
  tool_choice: { type: 'auto', disable_parallel_tool_use: true },
  messages: [{ role: 'user', content: 'What is the weather like in San Francisco?' }],
};

export const toolUseResponse = {
  id: 'msg_01Aq9w938a90dw8q',
  type: 'message',
  model: 'claude-3-7-sonnet-20250219',
  stop_reason: 'tool_use',
  stop_sequence: null,
  role: 'assistant',
  content: [
    { type: 'text', text: "I'll check the current weather in San Francisco for you." },
    { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { location: 'San Francisco, CA', unit: 'celsius' } },
  ],
  usage: { input_tokens: 384, output_tokens: 92 },
};

/** The follow-up turn: the assistant's tool_use, then the user's tool_result with more text after it. */
export const toolResultRequest = {
  model: 'claude-3-7-sonnet-20250219',
  max_tokens: 1024,
  tools: [weatherTool],
  messages: [
    { role: 'user', content: 'What is the weather like in San Francisco?' },
    { role: 'assistant', content: toolUseResponse.content },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees' },
        { type: 'text', text: 'Also, should I bring an umbrella?' },
      ],
    },
  ],
};

export const thinkingRequest = {
  model: 'claude-3-7-sonnet-20250219',
  max_tokens: 16000,
  thinking: { type: 'enabled', budget_tokens: 10000 },
  messages: [{ role: 'user', content: 'Are there an infinite number of prime numbers such that n mod 4 == 3?' }],
};

export const thinkingResponse = {
  id: 'msg_01ThinkingExample',
  type: 'message',
  role: 'assistant',
  model: 'claude-3-7-sonnet-20250219',
  content: [
    {
      type: 'thinking',
      thinking: 'Let me analyze this step by step...',
      signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL',
    },
    { type: 'text', text: 'Based on my analysis...' },
  ],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 50, output_tokens: 600 },
};

export const overloadedError = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };

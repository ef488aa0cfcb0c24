/**
 * Whole Responses API answers (POST /v1/responses without stream), written from OpenAI's
 * documentation:
 * - text: https://platform.openai.com/docs/api-reference/responses/create (the example response:
 *   one message item of output_text, usage with its details);
 * - parallel tool calls: https://platform.openai.com/docs/guides/function-calling (get_weather for
 *   two places in one turn: two function_call items, each with its fc_ id and call_ id);
 * - reasoning: https://platform.openai.com/docs/guides/reasoning (a reasoning item with summary
 *   parts, `reasoning.summary: "auto"`), with the cached and reasoning counts of the usage object;
 * - incomplete: the same guide's "max_output_tokens" case (status incomplete, incomplete_details
 *   reason max_output_tokens, the message item incomplete);
 * - refusal: https://platform.openai.com/docs/guides/structured-outputs (a refusal content part).
 * Ids and counts are filled in where a page elides them; the rest of each response object
 * (tools, text, reasoning settings...) is cut to what a conversion reads and a few fields beside.
 */

export const textAnswer = {
  id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
  object: 'response',
  created_at: 1741476542,
  status: 'completed',
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  model: 'gpt-4.1-2025-04-14',
  output: [
    {
      type: 'message',
      id: 'msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b',
      status: 'completed',
      role: 'assistant',
      content: [
        {
          type: 'output_text',
          text: 'In a peaceful grove beneath a silver moon, a unicorn named Lumina discovered a hidden pool that reflected the stars.',
          annotations: [],
        },
      ],
    },
  ],
  parallel_tool_calls: true,
  store: false,
  temperature: 1.0,
  usage: {
    input_tokens: 36,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 87,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 123,
  },
};

export const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Get current temperature for provided coordinates in celsius.',
  parameters: {
    type: 'object',
    properties: { latitude: { type: 'number' }, longitude: { type: 'number' } },
    required: ['latitude', 'longitude'],
    additionalProperties: false,
  },
  strict: true,
};

export const parallelCallsAnswer = {
  id: 'resp_68af1f0a2b4c81959a1d2f3e4b5c6d7e',
  object: 'response',
  created_at: 1756307210,
  status: 'completed',
  error: null,
  incomplete_details: null,
  model: 'gpt-4.1-2025-04-14',
  output: [
    {
      type: 'function_call',
      id: 'fc_12345xyz',
      call_id: 'call_12345xyz',
      name: 'get_weather',
      arguments: '{"latitude":48.8566,"longitude":2.3522}',
      status: 'completed',
    },
    {
      type: 'function_call',
      id: 'fc_67890abc',
      call_id: 'call_67890abc',
      name: 'get_weather',
      arguments: '{"latitude":4.711,"longitude":-74.0721}',
      status: 'completed',
    },
  ],
  parallel_tool_calls: true,
  tools: [weatherTool],
  usage: {
    input_tokens: 291,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 46,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 337,
  },
};

export const reasoningAnswer = {
  id: 'resp_6820f382ee1c8191bc096bee70894d040ac5ba57aafcbac7',
  object: 'response',
  created_at: 1746989954,
  status: 'completed',
  error: null,
  incomplete_details: null,
  model: 'o4-mini-2025-04-16',
  output: [
    {
      id: 'rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7',
      type: 'reasoning',
      summary: [
        { type: 'summary_text', text: '**Answering a simple question**\n\nThe capital of France is Paris.' },
        { type: 'summary_text', text: '**Checking the question**\n\nNothing tricky here; answer plainly.' },
      ],
    },
    {
      id: 'msg_6820f3854688819187769ff582b170a60ac5ba57aafcbac7',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', annotations: [], text: 'The capital of France is Paris.' }],
    },
  ],
  reasoning: { effort: 'medium', summary: 'detailed' },
  usage: {
    input_tokens: 1520,
    input_tokens_details: { cached_tokens: 1280 },
    output_tokens: 644,
    output_tokens_details: { reasoning_tokens: 512 },
    total_tokens: 2164,
  },
};

export const incompleteAnswer = {
  id: 'resp_7a1e5c0f9b2d8193a0c4e6f8a1b3c5d7',
  object: 'response',
  created_at: 1756307300,
  status: 'incomplete',
  error: null,
  incomplete_details: { reason: 'max_output_tokens' },
  model: 'gpt-4.1-2025-04-14',
  max_output_tokens: 16,
  output: [
    {
      id: 'msg_7a1e5c10aa3d8193b1d5f7a9c2e4a6b8',
      type: 'message',
      status: 'incomplete',
      role: 'assistant',
      content: [{ type: 'output_text', annotations: [], text: 'Once upon a time, in a land far' }],
    },
  ],
  usage: {
    input_tokens: 14,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 16,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 30,
  },
};

export const refusalAnswer = {
  id: 'resp_8b2f6d1a0c3e9204b1d5f7a9c2e4f6a8',
  object: 'response',
  created_at: 1756307400,
  status: 'completed',
  error: null,
  incomplete_details: null,
  model: 'gpt-4o-2024-08-06',
  output: [
    {
      id: 'msg_8b2f6d1b1d4f9204c2e6a8b0d3f5a7c9',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'refusal', refusal: "I'm sorry, I cannot assist with that request." }],
    },
  ],
  usage: {
    input_tokens: 81,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 11,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 92,
  },
};

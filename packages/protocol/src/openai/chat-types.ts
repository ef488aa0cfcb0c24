/**
 * OpenAI's chat completions wire types: the relay's canonical shape. Every other chat format
 * (Anthropic messages, Gemini contents, Cohere chat) converts to and from these, so any inbound
 * format reaches any outbound one through them (`../convert/`).
 *
 * Only the fields a conversion reads or writes are named; requests keep whatever else the client
 * sent (the index signature), which an OpenAI upstream receives untouched.
 */

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

/**
 * Claude's prompt-cache marker on a content part or a tool, as clients of OpenAI-style gateways
 * send it for Claude models (new-api carries it to Claude; OpenAI itself has no such field).
 */
export interface ChatCacheControl {
  type: 'ephemeral';
  ttl?: string | undefined;
}

export interface ChatTextPart {
  type: 'text';
  text: string;
  cache_control?: ChatCacheControl | undefined;
}

export interface ChatImagePart {
  type: 'image_url';
  /** An http(s) address or a `data:<mime>;base64,...` URL. */
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' | undefined };
  cache_control?: ChatCacheControl | undefined;
}

export interface ChatFilePart {
  type: 'file';
  /** `file_data` is a `data:<mime>;base64,...` URL (PDFs and the like). */
  file: { file_data?: string | undefined; filename?: string | undefined; file_id?: string | undefined };
  cache_control?: ChatCacheControl | undefined;
}

export interface ChatAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: string };
}

export type ChatContentPart = ChatTextPart | ChatImagePart | ChatFilePart | ChatAudioPart;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content?: string | ChatContentPart[] | null | undefined;
  name?: string | undefined;
  /** assistant: the tools it called. */
  tool_calls?: ChatToolCall[] | undefined;
  /** tool: the call this message answers. */
  tool_call_id?: string | undefined;
  /** assistant: its thinking (DeepSeek's and new-api's extension, carried back from Claude and Gemini). */
  reasoning_content?: string | undefined;
}

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string | undefined; parameters?: Record<string, unknown> | undefined; strict?: boolean | undefined };
  cache_control?: ChatCacheControl | undefined;
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | undefined;
  stream_options?: { include_usage?: boolean | undefined } | undefined;
  max_tokens?: number | undefined;
  max_completion_tokens?: number | undefined;
  temperature?: number | undefined;
  top_p?: number | undefined;
  /** Not OpenAI's; Claude and Gemini take it, and clients of OpenAI-style gateways send it. */
  top_k?: number | undefined;
  stop?: string | string[] | undefined;
  n?: number | undefined;
  seed?: number | undefined;
  presence_penalty?: number | undefined;
  frequency_penalty?: number | undefined;
  tools?: ChatTool[] | undefined;
  tool_choice?: ChatToolChoice | undefined;
  parallel_tool_calls?: boolean | undefined;
  reasoning_effort?: ReasoningEffort | undefined;
  response_format?:
    | { type: 'text' | 'json_object' | 'json_schema'; json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean } }
    | undefined;
  user?: string | undefined;
  [field: string]: unknown;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * Usage as OpenAI reports it: prompt_tokens counts every input token, cached ones included.
 * `cached_creation_tokens` (new-api's name) is the share written to the upstream's prompt cache
 * (Claude's cache_creation_input_tokens), billed at CreateCacheRatio, its one-hour share
 * (`cached_creation_1h_tokens`) at CreateCacheRatio × 6/3.75 as new-api bills it; Anthropic and Gemini usage
 * convert to this shape with their cache reads and writes added into prompt_tokens.
 */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?:
    | {
        cached_tokens?: number | undefined;
        cached_creation_tokens?: number | undefined;
        /** The share of cached_creation_tokens written for an hour (Claude's cache_creation.ephemeral_1h_input_tokens), billed higher. */
        cached_creation_1h_tokens?: number | undefined;
      }
    | undefined;
  completion_tokens_details?: { reasoning_tokens?: number | undefined } | undefined;
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  reasoning_content?: string | undefined;
  tool_calls?: ChatToolCall[] | undefined;
  refusal?: string | null | undefined;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: ChatCompletionMessage; finish_reason: ChatFinishReason | null }[];
  usage?: ChatUsage | undefined;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string | undefined;
  type?: 'function' | undefined;
  function?: { name?: string | undefined; arguments?: string | undefined } | undefined;
}

export interface ChatDelta {
  role?: 'assistant' | undefined;
  content?: string | null | undefined;
  reasoning_content?: string | undefined;
  tool_calls?: ChatToolCallDelta[] | undefined;
}

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: ChatDelta; finish_reason: ChatFinishReason | null }[];
  /** Present on the last chunk (or a chunk of its own with no choices) when usage is reported. */
  usage?: ChatUsage | null | undefined;
}

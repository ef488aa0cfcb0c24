/**
 * Cohere's v2 chat wire types (https://docs.cohere.com/v2/reference/chat and
 * https://docs.cohere.com/v2/docs/streaming), only the fields the converters read or write.
 */

export interface CohereTextPart {
  type: 'text';
  text: string;
}

export interface CohereImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' | undefined };
}

/** A reasoning model's thinking in an answer's content (command-a-reasoning). */
export interface CohereThinkingPart {
  type: 'thinking';
  thinking: string;
}

export interface CohereToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type CohereMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | (CohereTextPart | CohereImagePart)[] }
  | { role: 'assistant'; content?: string | undefined; tool_plan?: string | undefined; tool_calls?: CohereToolCall[] | undefined }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface CohereTool {
  type: 'function';
  function: { name: string; description?: string | undefined; parameters?: Record<string, unknown> | undefined };
}

export interface CohereChatRequest {
  model: string;
  messages: CohereMessage[];
  stream?: boolean;
  tools?: CohereTool[];
  tool_choice?: 'REQUIRED' | 'NONE';
  strict_tools?: boolean;
  max_tokens?: number;
  temperature?: number;
  p?: number;
  k?: number;
  stop_sequences?: string[];
  seed?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  response_format?: { type: 'text' } | { type: 'json_object'; json_schema?: Record<string, unknown> };
}

export type CohereFinishReason = 'COMPLETE' | 'STOP_SEQUENCE' | 'MAX_TOKENS' | 'TOOL_CALL' | 'ERROR' | 'TIMEOUT';

export interface CohereUsage {
  billed_units?: { input_tokens?: number; output_tokens?: number; search_units?: number } | undefined;
  tokens?: { input_tokens?: number; output_tokens?: number } | undefined;
  cached_tokens?: number | undefined;
}

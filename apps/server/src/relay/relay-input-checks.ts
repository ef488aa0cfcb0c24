import type { ChatFormat } from '@modelgate/protocol';
import { badRequest, type AppError } from '../errors/app-error.js';

/*
 * The request fields the relay reads itself, to route, stream and reserve. One of the wrong type
 * is refused, not read as absent: `"stream": "yes"` read as false, or `"model": 123` read as the
 * endpoint's default model, would answer (and bill) something the client did not ask for. Null
 * counts as absent, as OpenAI's API takes it. Plain typeof checks: they run on every call.
 */

const MAX_TOKEN_FIELDS = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isPositiveInteger = (value: unknown): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

const wrongType = (field: string, zh: string, en: string): AppError => badRequest(`${field} 字段必须是${zh} (${field} must be ${en})`, 'request:invalid_type');

function checkPositiveInteger(field: string, value: unknown): void {
  if (value === undefined || value === null || isPositiveInteger(value)) return;
  if (typeof value !== 'number') throw wrongType(field, '正整数', 'a positive integer');
  throw badRequest(`${field} 字段必须是正整数 (${field} must be a positive integer, not ${value})`, 'request:invalid_value');
}

function checkBoolean(field: string, value: unknown): void {
  if (value !== undefined && value !== null && typeof value !== 'boolean') throw wrongType(field, '布尔值', 'true or false');
}

/** An OpenAI-format body (chat, completions, responses, embeddings, images, audio speech, moderations, rerank). */
export function checkOpenAIFields(json: Record<string, unknown>): void {
  const model = json.model;
  if (model !== undefined && model !== null && typeof model !== 'string') throw wrongType('model', '字符串', 'a string');
  checkBoolean('stream', json.stream);
  checkPositiveInteger('n', json.n);
  for (const field of MAX_TOKEN_FIELDS) checkPositiveInteger(field, json[field]);
  const streamOptions = json.stream_options;
  if (streamOptions === undefined || streamOptions === null) return;
  if (!isObject(streamOptions)) throw wrongType('stream_options', '对象', 'an object');
  checkBoolean('stream_options.include_usage', streamOptions.include_usage);
}

/**
 * Anthropic's and Gemini's own bodies. Anthropic's model and max_tokens are checked by its
 * request schema; its stream is read here. Gemini names the model and the stream in the URL;
 * its output cap and candidate count are in generationConfig, in either spelling Google takes.
 */
export function checkNativeFields(format: ChatFormat, json: Record<string, unknown>): void {
  if (format === 'anthropic') {
    checkBoolean('stream', json.stream);
    return;
  }
  if (format !== 'gemini') return;
  const config = json.generationConfig ?? json.generation_config;
  if (config === undefined || config === null) return;
  if (!isObject(config)) throw wrongType('generationConfig', '对象', 'an object');
  checkPositiveInteger('generationConfig.maxOutputTokens', config.maxOutputTokens ?? config.max_output_tokens);
  checkPositiveInteger('generationConfig.candidateCount', config.candidateCount ?? config.candidate_count);
}

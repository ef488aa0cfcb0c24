import { describe, expect, it } from 'vitest';
import {
  headerMapIssue,
  intMapIssue,
  outputBoundMapIssue,
  responsesPolicyIssue,
  safetyMapIssue,
  stringListIssue,
  thinkingBudget,
  versionMapIssue,
} from './model-settings-rules';
import { NUMBER_RULES, numberProblem } from './operation-rules';

describe('the Claude settings’ shapes', () => {
  it('default max tokens: whole numbers of 0 or more per model', () => {
    expect(intMapIssue('{"default": 8192, "claude-3-haiku-20240307": 4096}')).toBeNull();
    expect(intMapIssue('{"default": 0}')).toBeNull();
    expect(intMapIssue('{"default": 8192.5}')).toEqual({ problem: 'notInteger', entry: 'default' });
    expect(intMapIssue('{"m": "4096"}')).toEqual({ problem: 'notInteger', entry: 'm' });
    expect(intMapIssue('{"m": -1}')).toEqual({ problem: 'notInteger', entry: 'm' });
    expect(intMapIssue('[8192]')).toEqual({ problem: 'notObject' });
    // Not JSON at all: the card's "不是合法的 JSON 字符串" speaks first.
    expect(intMapIssue('{"default": ')).toBeNull();
  });

  it('header overrides: model → {header: [values]}, names that are header names, values without line breaks', () => {
    expect(headerMapIssue('{"claude-3-7-sonnet-20250219-thinking": {"anthropic-beta": ["output-128k-2025-02-19"]}}')).toBeNull();
    expect(headerMapIssue('{}')).toBeNull();
    expect(headerMapIssue('{"m": {"anthropic-beta": "output-128k-2025-02-19"}}')).toEqual({ problem: 'notHeaderList', entry: 'm' });
    expect(headerMapIssue('{"m": ["anthropic-beta"]}')).toEqual({ problem: 'notHeaderList', entry: 'm' });
    expect(headerMapIssue('{"m": {"x-a": ["1\\r\\nx-b: 2"]}}')).toEqual({ problem: 'notHeaderList', entry: 'm' });
    expect(headerMapIssue('{"m": {"bad header": ["v"]}}')).toEqual({ problem: 'badHeaderName', entry: 'bad header' });
    expect(headerMapIssue('"text"')).toEqual({ problem: 'notObject' });
  });

  it('the thinking budget shown under the share: MaxTokens ("default", else 8192) × share, rounded down', () => {
    expect(thinkingBudget('{"default": 8192}', '0.8')).toEqual({ maxTokens: 8192, budget: 6553 });
    expect(thinkingBudget('{"claude-x": 1000}', '0.5')).toEqual({ maxTokens: 8192, budget: 4096 });
    expect(thinkingBudget('{', '0.5')).toBeNull();
    expect(thinkingBudget('{"default": 100}', '')).toBeNull();
  });
});

describe('the model output bounds’ shape (ModelMaxOutputTokens)', () => {
  it('maps model names, prefixes and "default" to whole numbers of 1 or more', () => {
    expect(outputBoundMapIssue('{"default": 16384, "gpt-4o": 16384, "claude-sonnet-4": 64000}')).toBeNull();
    expect(outputBoundMapIssue('{}')).toBeNull();
    expect(outputBoundMapIssue('{"default": 1}')).toBeNull();
  });

  it('refuses 0, which the relay would skip, and anything that is not a whole number', () => {
    expect(outputBoundMapIssue('{"default": 16384, "gpt-4o": 0}')).toEqual({ problem: 'notPositiveInteger', entry: 'gpt-4o' });
    expect(outputBoundMapIssue('{"gpt-4o": -5}')).toEqual({ problem: 'notPositiveInteger', entry: 'gpt-4o' });
    expect(outputBoundMapIssue('{"gpt-4o": 4096.5}')).toEqual({ problem: 'notPositiveInteger', entry: 'gpt-4o' });
    expect(outputBoundMapIssue('{"gpt-4o": "4096"}')).toEqual({ problem: 'notPositiveInteger', entry: 'gpt-4o' });
    expect(outputBoundMapIssue('{"gpt-4o": null}')).toEqual({ problem: 'notPositiveInteger', entry: 'gpt-4o' });
    expect(outputBoundMapIssue('{"default": 1e20}')).toEqual({ problem: 'notPositiveInteger', entry: 'default' });
  });

  it('refuses anything but an object, and leaves text that does not parse to the JSON check', () => {
    expect(outputBoundMapIssue('[16384]')).toEqual({ problem: 'notObject' });
    expect(outputBoundMapIssue('16384')).toEqual({ problem: 'notObject' });
    expect(outputBoundMapIssue('{"default": ')).toBeNull();
  });
});

describe('the Gemini settings’ shapes', () => {
  it('safety: category → one of Gemini’s thresholds (empty falls back to default)', () => {
    expect(safetyMapIssue('{"default": "OFF", "HARM_CATEGORY_CIVIC_INTEGRITY": "BLOCK_NONE", "HARM_CATEGORY_HATE_SPEECH": ""}')).toBeNull();
    expect(safetyMapIssue('{"default": "NONE"}')).toEqual({ problem: 'badThreshold', entry: 'default' });
    expect(safetyMapIssue('{"default": 0}')).toEqual({ problem: 'notString', entry: 'default' });
    expect(safetyMapIssue('["OFF"]')).toEqual({ problem: 'notObject' });
  });

  it('versions: model → an API version such as v1 or v1beta', () => {
    expect(versionMapIssue('{"default": "v1beta", "gemini-1.0-pro": "v1", "x": "v1alpha"}')).toBeNull();
    expect(versionMapIssue('{"default": "beta"}')).toEqual({ problem: 'badVersion', entry: 'default' });
    expect(versionMapIssue('{"default": "../v1"}')).toEqual({ problem: 'badVersion', entry: 'default' });
    expect(versionMapIssue('{"default": 1}')).toEqual({ problem: 'notString', entry: 'default' });
  });

  it('image models: an array of names', () => {
    expect(stringListIssue('["gemini-2.0-flash-exp-image-generation"]')).toBeNull();
    expect(stringListIssue('[]')).toBeNull();
    expect(stringListIssue('[1]')).toEqual({ problem: 'notStringList' });
    expect(stringListIssue('{"a": "b"}')).toEqual({ problem: 'notStringList' });
  });
});

describe('the thinking shares’ ranges', () => {
  it('Claude 0.1 to 1, Gemini 0.002 to 1, as the server takes them', () => {
    const claude = NUMBER_RULES['claude.thinking_adapter_budget_tokens_percentage'];
    expect(numberProblem('0.8', claude)).toBeNull();
    expect(numberProblem('1', claude)).toBeNull();
    expect(numberProblem('0.05', claude)).toBe('belowMin');
    expect(numberProblem('1.5', claude)).toBe('aboveMax');
    const gemini = NUMBER_RULES['gemini.thinking_adapter_budget_tokens_percentage'];
    expect(numberProblem('0.002', gemini)).toBeNull();
    expect(numberProblem('0.001', gemini)).toBe('belowMin');
    expect(numberProblem('2', gemini)).toBe('aboveMax');
  });
});

describe('the ChatCompletions→Responses policy’s shape', () => {
  it('takes new-api’s fields with their types and patterns that are regular expressions', () => {
    expect(responsesPolicyIssue('{"enabled":true,"all_channels":false,"channel_ids":[3],"channel_types":[1],"model_patterns":["^gpt-5.*-codex$"]}')).toBeNull();
    expect(responsesPolicyIssue('{}')).toBeNull();
    expect(responsesPolicyIssue('not json')).toBeNull();
    expect(responsesPolicyIssue('[]')).toEqual({ problem: 'notObject' });
    expect(responsesPolicyIssue('{"enabled":"yes"}')).toEqual({ problem: 'badPolicy', entry: 'enabled' });
    expect(responsesPolicyIssue('{"channel_ids":[0]}')).toEqual({ problem: 'badPolicy', entry: 'channel_ids' });
    expect(responsesPolicyIssue('{"channels":[1]}')).toEqual({ problem: 'badPolicy', entry: 'channels' });
    expect(responsesPolicyIssue('{"model_patterns":["gpt-(5"]}')).toEqual({ problem: 'badPattern', entry: 'gpt-(5' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionValidationError } from '../../config/option-registry.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import {
  claudeDefaultMaxTokens,
  claudeModelHeaders,
  claudeThinkingAdapter,
  geminiApiVersion,
  geminiSafetyThreshold,
  geminiSupportsImageOutput,
  geminiThinkingAdapter,
  mergeHeaderList,
} from './model-settings.js';
import { OptionService } from './option-service.js';

/** The model settings as the relay reads them, over a real option service and SQLite file. */

let fresh: FreshDb;
let options: OptionService;

beforeAll(async () => {
  fresh = await createFreshDb('sqlite');
  options = new OptionService(fresh.db);
});
afterAll(async () => fresh.drop());

describe('defaults (new-api’s)', () => {
  it('Claude: 8192 max tokens, thinking adapter on at 0.8, no extra headers', () => {
    expect(claudeDefaultMaxTokens(options, 'claude-sonnet-4-20250514')).toBe(8192);
    expect(claudeThinkingAdapter(options)).toEqual({ enabled: true, budgetPercentage: 0.8 });
    expect(claudeModelHeaders(options, 'claude-sonnet-4-20250514')).toEqual({});
  });

  it('Gemini: safety OFF for every category, v1beta except gemini-1.0-pro on v1, adapter off at 0.6, image models', () => {
    const threshold = geminiSafetyThreshold(options);
    expect(threshold('HARM_CATEGORY_HARASSMENT')).toBe('OFF');
    expect(threshold('HARM_CATEGORY_CIVIC_INTEGRITY')).toBe('OFF');
    expect(geminiApiVersion(options, 'gemini-2.5-pro')).toBe('v1beta');
    expect(geminiApiVersion(options, 'gemini-1.0-pro')).toBe('v1');
    expect(geminiThinkingAdapter(options)).toEqual({ enabled: false, budgetPercentage: 0.6 });
    expect(geminiSupportsImageOutput(options, 'gemini-2.5-flash-image')).toBe(true);
    expect(geminiSupportsImageOutput(options, 'gemini-2.5-flash')).toBe(false);
  });
});

describe('after the options change', () => {
  it('max tokens: the model’s entry, else "default", else 8192', async () => {
    await options.set('claude.default_max_tokens', JSON.stringify({ default: 4096, 'claude-3-haiku-20240307': 2048 }));
    expect(claudeDefaultMaxTokens(options, 'claude-3-haiku-20240307')).toBe(2048);
    expect(claudeDefaultMaxTokens(options, 'claude-opus-4-1-20250805')).toBe(4096);
    await options.set('claude.default_max_tokens', JSON.stringify({ 'claude-3-haiku-20240307': 2048 }));
    expect(claudeDefaultMaxTokens(options, 'claude-opus-4-1-20250805')).toBe(8192);
    // A model named like an Object.prototype member is not found there.
    expect(claudeDefaultMaxTokens(options, 'constructor')).toBe(8192);
  });

  it('headers: per model, names in lower case, values trimmed, de-duplicated and joined with ","; others get none', async () => {
    await options.set(
      'claude.model_headers_settings',
      JSON.stringify({
        'claude-3-7-sonnet-20250219': {
          'anthropic-beta': ['output-128k-2025-02-19', ' token-efficient-tools-2025-02-19 ', 'output-128k-2025-02-19'],
          'X-Team': ['a,b', 'b'],
        },
      }),
    );
    const headers = claudeModelHeaders(options, 'claude-3-7-sonnet-20250219');
    expect(headers).toEqual({ 'anthropic-beta': 'output-128k-2025-02-19,token-efficient-tools-2025-02-19', 'x-team': 'a,b' });
    // The same object on the next call: built once per stored value.
    expect(claudeModelHeaders(options, 'claude-3-7-sonnet-20250219')).toBe(headers);
    expect(claudeModelHeaders(options, 'claude-sonnet-4-20250514')).toEqual({});
    // The client's own anthropic-beta items come first and are kept.
    expect(mergeHeaderList('prompt-caching-2024-07-31, output-128k-2025-02-19', headers['anthropic-beta']!)).toBe(
      'prompt-caching-2024-07-31,output-128k-2025-02-19,token-efficient-tools-2025-02-19',
    );
    expect(mergeHeaderList(undefined, 'a,b')).toBe('a,b');

    await options.set('claude.model_headers_settings', '{}');
    expect(claudeModelHeaders(options, 'claude-3-7-sonnet-20250219')).toEqual({});
  });

  it('thinking adapters follow their switches and percentages', async () => {
    await options.set('claude.thinking_adapter_enabled', 'false');
    await options.set('claude.thinking_adapter_budget_tokens_percentage', '0.5');
    await options.set('gemini.thinking_adapter_enabled', 'true');
    await options.set('gemini.thinking_adapter_budget_tokens_percentage', '0.25');
    expect(claudeThinkingAdapter(options)).toEqual({ enabled: false, budgetPercentage: 0.5 });
    expect(geminiThinkingAdapter(options)).toEqual({ enabled: true, budgetPercentage: 0.25 });
  });

  it('safety: the category’s entry, else "default" (an empty entry counts as none)', async () => {
    await options.set(
      'gemini.safety_settings',
      JSON.stringify({ default: 'BLOCK_ONLY_HIGH', HARM_CATEGORY_CIVIC_INTEGRITY: 'BLOCK_NONE', HARM_CATEGORY_HATE_SPEECH: '' }),
    );
    const threshold = geminiSafetyThreshold(options);
    expect(threshold('HARM_CATEGORY_CIVIC_INTEGRITY')).toBe('BLOCK_NONE');
    expect(threshold('HARM_CATEGORY_HATE_SPEECH')).toBe('BLOCK_ONLY_HIGH');
    expect(threshold('HARM_CATEGORY_DANGEROUS_CONTENT')).toBe('BLOCK_ONLY_HIGH');
    expect(geminiSafetyThreshold(options)).toBe(threshold);
    await options.set('gemini.safety_settings', JSON.stringify({ HARM_CATEGORY_CIVIC_INTEGRITY: 'BLOCK_NONE' }));
    expect(geminiSafetyThreshold(options)('HARM_CATEGORY_HARASSMENT')).toBe('OFF');
  });

  it('versions and image models', async () => {
    await options.set('gemini.version_settings', JSON.stringify({ default: 'v1', 'gemini-2.5-pro': 'v1alpha' }));
    expect(geminiApiVersion(options, 'gemini-2.5-pro')).toBe('v1alpha');
    expect(geminiApiVersion(options, 'gemini-2.0-flash')).toBe('v1');
    await options.set('gemini.supported_imagine_models', JSON.stringify(['my-image-model']));
    expect(geminiSupportsImageOutput(options, 'my-image-model')).toBe(true);
    expect(geminiSupportsImageOutput(options, 'gemini-2.5-flash-image')).toBe(false);
  });

  it('refuses values the relay could not use, keeping the old one', async () => {
    const refusals: [string, string, string][] = [
      ['claude.default_max_tokens', '{"default": -1}', 'claude.default_max_tokens 中 default 的值必须是非负整数'],
      ['claude.default_max_tokens', '{"default": 8192.5}', 'claude.default_max_tokens 中 default 的值必须是非负整数'],
      ['claude.default_max_tokens', '{"default": 8192', '缺省 MaxTokens不是合法的 JSON 字符串'],
      ['claude.model_headers_settings', '{"m": {"anthropic-beta": "x"}}', 'claude.model_headers_settings 中 m 的 anthropic-beta 必须是字符串数组（不含换行）'],
      ['claude.model_headers_settings', '{"m": ["x"]}', 'claude.model_headers_settings 中 m 的值必须是 {"请求头": ["值", ...]} 形式的 JSON 对象'],
      ['claude.model_headers_settings', '{"m": {"bad header": ["x"]}}', 'claude.model_headers_settings 中 m 的请求头名称 bad header 不合法'],
      ['claude.model_headers_settings', '{"m": {"x-a": ["1\\r\\nx-b: 2"]}}', 'claude.model_headers_settings 中 m 的 x-a 必须是字符串数组（不含换行）'],
      ['claude.thinking_adapter_budget_tokens_percentage', '1.5', 'claude.thinking_adapter_budget_tokens_percentage 不能大于 1'],
      ['claude.thinking_adapter_budget_tokens_percentage', '0.05', 'claude.thinking_adapter_budget_tokens_percentage 不能小于 0.1'],
      ['claude.thinking_adapter_enabled', 'yes', 'claude.thinking_adapter_enabled 必须是 true 或 false'],
      [
        'gemini.safety_settings',
        '{"default": "NONE"}',
        'gemini.safety_settings 中 default 的值 NONE 不是可用的取值（OFF、BLOCK_NONE、BLOCK_ONLY_HIGH、BLOCK_MEDIUM_AND_ABOVE、BLOCK_LOW_AND_ABOVE、HARM_BLOCK_THRESHOLD_UNSPECIFIED）',
      ],
      ['gemini.safety_settings', '["OFF"]', 'gemini.safety_settings 必须是 JSON 对象'],
      ['gemini.version_settings', '{"default": "../v1"}', 'gemini.version_settings 中 default 的值 ../v1 不是合法的版本号（如 v1、v1beta）'],
      ['gemini.supported_imagine_models', '[1]', 'gemini.supported_imagine_models 必须是字符串组成的 JSON 数组'],
      ['gemini.thinking_adapter_budget_tokens_percentage', '0.001', 'gemini.thinking_adapter_budget_tokens_percentage 不能小于 0.002'],
      ['CreateCacheRatio', '{"claude-x": "1.25"}', 'CreateCacheRatio 中 claude-x 的值必须是非负数字'],
      ['CreateCacheRatio', '{', '缓存创建倍率不是合法的 JSON 字符串'],
    ];
    for (const [key, value, message] of refusals) {
      const before = options.raw(key as never);
      await expect(options.set(key, value), `${key} = ${value}`).rejects.toThrow(new OptionValidationError(message));
      expect(options.raw(key as never)).toBe(before);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { tagsOf, vendorOf } from './model-vendors.js';

describe('model vendors and tags read from the name (pricing page)', () => {
  it.each([
    ['gpt-4o-mini', 'OpenAI'],
    ['o3-mini', 'OpenAI'],
    ['dall-e-3', 'OpenAI'],
    ['claude-3-5-haiku-20241022', 'Anthropic'],
    ['gemini-2.5-pro', 'Google'],
    ['deepseek-reasoner', 'DeepSeek'],
    ['qwen-vl-max', '阿里巴巴'],
    ['glm-4-plus', '智谱'],
    ['Doubao-Seed-1.6', '字节跳动'],
    ['grok-4', 'xAI'],
    ['yi-large', '零一万物'],
    ['mj_imagine', 'Midjourney'],
    ['@cf/meta/llama-3-8b-instruct', 'Cloudflare'],
  ])('%s is made by %s', (model, vendor) => {
    expect(vendorOf(model)?.name).toBe(vendor);
  });

  it('knows no vendor for a name no rule matches, and does not take a substring for a name (yi, o1)', () => {
    expect(vendorOf('house-model')).toBeUndefined();
    expect(vendorOf('tiny-o1-clone')).toBeUndefined();
    expect(vendorOf('unyielding')).toBeUndefined();
  });

  it('tags what a model makes before what a chat model can do, so a speech model is not tagged vision', () => {
    expect(tagsOf('gpt-4o-mini-tts')).toBe('audio');
    expect(tagsOf('gpt-image-1')).toBe('image');
    expect(tagsOf('text-embedding-3-large')).toBe('embedding');
    expect(tagsOf('jina-reranker-v2')).toBe('rerank');
    expect(tagsOf('sora-2')).toBe('video');
    expect(tagsOf('o3-mini')).toBe('reasoning,vision');
    expect(tagsOf('deepseek-reasoner')).toBe('reasoning');
    expect(tagsOf('gemini-2.0-flash')).toBe('vision');
    expect(tagsOf('deepseek-chat')).toBe('');
  });
});

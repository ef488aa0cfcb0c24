import { describe, expect, it } from 'vitest';
import type { Token } from './api';
import { fullKey, tokensAsText } from './token-rules';

const token = (id: number, name: string) => ({ id, name, key: 'abcd**********wxyz' }) as Token;

describe('copy selected', () => {
  it('writes one "name    sk-key" line per token with the keys read from the server, never the masked ones', () => {
    const text = tokensAsText([token(1, 'one'), token(2, 'two')], { 1: 'K1full', 2: 'K2full' });
    expect(text).toBe('one    sk-K1full\ntwo    sk-K2full');
    expect(text).not.toContain('*');
  });

  it('leaves out a token whose key did not come back (deleted meanwhile)', () => {
    expect(tokensAsText([token(1, 'one'), token(2, 'gone')], { 1: 'K1full' })).toBe('one    sk-K1full');
    expect(tokensAsText([token(2, 'gone')], {})).toBe('');
  });

  it('adds sk- to a key as users paste it', () => {
    expect(fullKey('abc')).toBe('sk-abc');
  });
});

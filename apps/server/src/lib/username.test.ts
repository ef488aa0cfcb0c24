import { describe, expect, it } from 'vitest';
import { hasForbiddenCharacters, usernameKey } from './username.js';

describe('username characters', () => {
  it.each([
    ['a zero-width space', 'root\u200b'],
    ['a zero-width joiner', 'ro\u200dot'],
    ['a NUL', 'a\u0000b'],
    ['a newline', 'a\nb'],
    ['a right-to-left override', 'evil\u202egnp'],
    ['a left-to-right isolate', '\u2066root'],
    ['a byte-order mark', '\ufeffroot'],
    ['a lone high surrogate', 'ab\ud800'],
    ['a lone low surrogate', '\udc00ab'],
  ])('refuses %s', (_label, name) => {
    expect(hasForbiddenCharacters(name)).toBe(true);
  });

  it.each(['root', 'Zoë', '张三', 'user_01', 'naïve-name', 'ok😀'])('accepts %s', (name) => {
    expect(hasForbiddenCharacters(name)).toBe(false);
  });
});

describe('usernameKey', () => {
  it('folds case, compatibility forms and Cyrillic/Greek look-alikes to one key', () => {
    // Latin, Cyrillic о, Cyrillic о + Greek ο, Cyrillic capitals, full-width letters.
    for (const lookalike of ['root', 'Root', 'ROOT', 'r\u043eot', 'r\u043e\u03bft', 'R\u041e\u041eT', 'ｒｏｏｔ']) {
      expect(usernameKey(lookalike), JSON.stringify(lookalike)).toBe('root');
    }
    // Only the look-alikes are mapped: Cyrillic д, м and н stay what they are.
    expect(usernameKey('\u0410\u0414\u041c\u0406\u041d')).toBe('a\u0434\u043ci\u043d');
    expect(usernameKey('\u0440\u0430\u0443\u0440\u0430l')).toBe('paypal');
    expect(usernameKey('ｅｘａｍｐｌｅ')).toBe('example');
    expect(usernameKey('ﬁnance')).toBe('finance');
  });

  it('keeps different names apart', () => {
    expect(usernameKey('root')).not.toBe(usernameKey('r00t'));
    expect(usernameKey('张三')).not.toBe(usernameKey('张四'));
  });

  it('stays short enough for the unique index when compatibility forms expand', () => {
    const expanding = '\ufdfa'.repeat(12);
    expect(expanding.normalize('NFKC').length).toBeGreaterThan(191);
    expect(usernameKey(expanding).length).toBeLessThanOrEqual(160);
    expect(usernameKey(expanding)).toBe(usernameKey('\ufdfa'.repeat(12)));
  });
});

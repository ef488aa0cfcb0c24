import { describe, expect, it } from 'vitest';
import en from '../../../i18n/locales/en/settings-operation.json';
import zh from '../../../i18n/locales/zh/settings-operation.json';
import { NUMBER_RULES } from './operation-rules';

/** Key paths of a text tree; English plural forms (_one/_other) count as their base key. */
function paths(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) => {
    const path = `${prefix}${key.replace(/_(one|other)$/, '')}`;
    return typeof value === 'object' && value !== null ? paths(value as object, `${path}.`) : [path];
  });
}

describe('settings-operation texts', () => {
  it('has the same keys in zh and en (the option fields read them as one object per key)', () => {
    expect([...new Set(paths(en))].sort()).toEqual([...new Set(paths(zh))].sort());
  });

  it('names every numeric option, for its "… 不能小于 …" message', () => {
    for (const key of Object.keys(NUMBER_RULES)) {
      expect(zh.fields).toHaveProperty([key, 'label']);
      expect(en.fields).toHaveProperty([key, 'label']);
    }
  });
});

import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import en from '../i18n/locales/en/common.json';
import zh from '../i18n/locales/zh/common.json';
import { shownGroupDescription, textLanguage } from './group-description';

const texts = i18next.createInstance();
let tEn: TFunction<'common'>;
let tZh: TFunction<'common'>;
beforeAll(async () => {
  await texts.init({
    resources: { en: { common: en }, zh: { common: zh } },
    lng: 'en',
    ns: ['common'],
    interpolation: { escapeValue: false },
    showSupportNotice: false,
  });
  tEn = texts.getFixedT('en', 'common') as unknown as TFunction<'common'>;
  tZh = texts.getFixedT('zh', 'common') as unknown as TFunction<'common'>;
});

const both = (desc?: string) => [shownGroupDescription(desc, 'en', tEn), shownGroupDescription(desc, 'zh', tZh)];

describe('a group’s description in the reader’s language', () => {
  it('translates the descriptions the server ships and the one of the user’s own group', () => {
    expect(both('默认分组')).toEqual(['Default group', '默认分组']);
    expect(both('vip分组')).toEqual(['VIP group', 'vip分组']);
    expect(both('svip分组')).toEqual(['SVIP group', 'svip分组']);
    expect(both('用户分组')).toEqual(['Your group', '用户分组']);
  });

  it('shows an admin’s own description only to readers of its language, or to all when its language is unknown', () => {
    expect(both('专业分组')).toEqual([undefined, '专业分组']);
    expect(both('For paying teams')).toEqual(['For paying teams', undefined]);
    expect(both('1.5×')).toEqual(['1.5×', '1.5×']);
    // Mixed text with Chinese in it is Chinese.
    expect(both('GPT 专线')).toEqual([undefined, 'GPT 专线']);
  });

  it('shows nothing without a description', () => {
    expect(both('')).toEqual([undefined, undefined]);
    expect(both()).toEqual([undefined, undefined]);
  });

  it('tells the language of a text', () => {
    expect(['默认分组', 'Default', '42 %', ''].map(textLanguage)).toEqual(['zh', 'en', 'unknown', 'unknown']);
  });
});

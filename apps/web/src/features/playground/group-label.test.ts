import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/playground.json';
import zh from '../../i18n/locales/zh/playground.json';
import { groupLabel, textLanguage } from './group-label';

const texts = i18next.createInstance();
let tEn: TFunction<'playground'>;
let tZh: TFunction<'playground'>;
beforeAll(async () => {
  await texts.init({
    resources: { en: { playground: en }, zh: { playground: zh } },
    lng: 'en',
    ns: ['playground'],
    interpolation: { escapeValue: false },
    showSupportNotice: false,
  });
  tEn = texts.getFixedT('en', 'playground') as unknown as TFunction<'playground'>;
  tZh = texts.getFixedT('zh', 'playground') as unknown as TFunction<'playground'>;
});

const both = (name: string, desc?: string) => [groupLabel(name, desc, 'en', tEn), groupLabel(name, desc, 'zh', tZh)];

describe('a group’s label in the playground', () => {
  it('translates the descriptions the server ships and the one of the user’s own group', () => {
    expect(both('default', '默认分组')).toEqual(['default (Default group)', 'default（默认分组）']);
    expect(both('vip', 'vip分组')).toEqual(['vip (VIP group)', 'vip（vip分组）']);
    expect(both('svip', 'svip分组')).toEqual(['svip (SVIP group)', 'svip（svip分组）']);
    expect(both('team-a', '用户分组')).toEqual(['team-a (Your group)', 'team-a（用户分组）']);
  });

  it('shows an admin’s own description only to readers of its language, or to all when its language is unknown', () => {
    expect(both('pro', '专业分组')).toEqual(['pro', 'pro（专业分组）']);
    expect(both('pro', 'For paying teams')).toEqual(['pro (For paying teams)', 'pro']);
    expect(both('pro', '1.5×')).toEqual(['pro (1.5×)', 'pro（1.5×）']);
    // Mixed text with Chinese in it is Chinese.
    expect(both('gpt', 'GPT 专线')).toEqual(['gpt', 'gpt（GPT 专线）']);
  });

  it('shows the bare name when there is no description', () => {
    expect(both('plain', '')).toEqual(['plain', 'plain']);
    expect(both('plain')).toEqual(['plain', 'plain']);
  });

  it('tells the language of a text', () => {
    expect(['默认分组', 'Default', '42 %', ''].map(textLanguage)).toEqual(['zh', 'en', 'unknown', 'unknown']);
  });
});

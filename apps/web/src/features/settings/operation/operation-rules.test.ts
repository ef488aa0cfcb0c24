import { describe, expect, it } from 'vitest';
import {
  acceptsNumberInput,
  chatsIssue,
  countSensitiveWords,
  firstNumberProblem,
  groupDescriptionsIssue,
  groupRatioColour,
  groupRatioEntries,
  logCutoffSeconds,
  NUMBER_RULES,
  numberProblem,
  quotaAsDollars,
  ratioMapIssue,
} from './operation-rules';

describe('groupRatioColour (spec 01 §9)', () => {
  it('is red above 5, orange above 3, blue above 1, else green', () => {
    expect(groupRatioColour(5.01)).toBe('red');
    expect(groupRatioColour(100)).toBe('red');
    expect(groupRatioColour(5)).toBe('orange');
    expect(groupRatioColour(3.5)).toBe('orange');
    expect(groupRatioColour(3)).toBe('blue');
    expect(groupRatioColour(1.1)).toBe('blue');
    expect(groupRatioColour(1)).toBe('green');
    expect(groupRatioColour(0.5)).toBe('green');
    expect(groupRatioColour(0)).toBe('green');
  });
});

describe('groupRatioEntries', () => {
  it('lists each group with its colour, in the text order', () => {
    expect(groupRatioEntries('{"default": 1, "vip": 2, "svip": 4, "ultra": 6}')).toEqual([
      { group: 'default', ratio: 1, colour: 'green' },
      { group: 'vip', ratio: 2, colour: 'blue' },
      { group: 'svip', ratio: 4, colour: 'orange' },
      { group: 'ultra', ratio: 6, colour: 'red' },
    ]);
  });

  it('answers null for text that is not an object of numbers', () => {
    expect(groupRatioEntries('{"default": 1,')).toBeNull();
    expect(groupRatioEntries('[1, 2]')).toBeNull();
    expect(groupRatioEntries('{"default": "1"}')).toBeNull();
    expect(groupRatioEntries('{}')).toEqual([]);
  });
});

describe('numeric fields (spec 01 §5)', () => {
  it('lets only digits (and one point where fractions are allowed) be typed', () => {
    expect(acceptsNumberInput('120', NUMBER_RULES.RetryTimes)).toBe(true);
    expect(acceptsNumberInput('', NUMBER_RULES.RetryTimes)).toBe(true);
    expect(acceptsNumberInput('1.5', NUMBER_RULES.RetryTimes)).toBe(false);
    expect(acceptsNumberInput('-1', NUMBER_RULES.RetryTimes)).toBe(false);
    expect(acceptsNumberInput('abc', NUMBER_RULES.QuotaForNewUser)).toBe(false);
    expect(acceptsNumberInput('1.5', NUMBER_RULES.ChannelDisableThreshold)).toBe(true);
    expect(acceptsNumberInput('1.', NUMBER_RULES.ChannelDisableThreshold)).toBe(true);
    expect(acceptsNumberInput('1.5.2', NUMBER_RULES.ChannelDisableThreshold)).toBe(false);
  });

  it('refuses an empty field, text, fractions where whole numbers are asked, and values under the minimum', () => {
    expect(numberProblem('', NUMBER_RULES.RetryTimes)).toBe('required');
    expect(numberProblem('  ', NUMBER_RULES.RetryTimes)).toBe('required');
    expect(numberProblem('3x', NUMBER_RULES.RetryTimes)).toBe('notNumber');
    expect(numberProblem('1e3', NUMBER_RULES.RetryTimes)).toBe('notNumber');
    expect(numberProblem('2.5', NUMBER_RULES.RetryTimes)).toBe('notInteger');
    expect(numberProblem('-1', NUMBER_RULES.QuotaForNewUser)).toBe('belowMin');
    expect(numberProblem('0', NUMBER_RULES.QuotaForNewUser)).toBeNull();
    expect(numberProblem('0', NUMBER_RULES.DataExportInterval)).toBe('belowMin');
    expect(numberProblem('1', NUMBER_RULES.DataExportInterval)).toBeNull();
    expect(numberProblem('0', NUMBER_RULES.QuotaPerUnit)).toBe('notAboveMin');
    expect(numberProblem('0.5', NUMBER_RULES.QuotaPerUnit)).toBeNull();
    expect(numberProblem('2.', NUMBER_RULES.ChannelDisableThreshold)).toBeNull();
  });

  it('takes a smallest capped output of 1 token or more, whole numbers only', () => {
    const rule = NUMBER_RULES.MinCappedOutputTokens;
    expect(numberProblem('128', rule)).toBeNull();
    expect(numberProblem('1', rule)).toBeNull();
    expect(numberProblem('0', rule)).toBe('belowMin');
    expect(numberProblem('', rule)).toBe('required');
    expect(numberProblem('64.5', rule)).toBe('notInteger');
    expect(acceptsNumberInput('64.5', rule)).toBe(false);
  });

  it('finds the first refused field in the card order', () => {
    const values = { DataExportInterval: '0', RetryTimes: 'x', QuotaForNewUser: '10' };
    expect(firstNumberProblem(values, ['QuotaForNewUser', 'DataExportInterval', 'RetryTimes'])).toEqual({ key: 'DataExportInterval', problem: 'belowMin' });
    expect(firstNumberProblem(values, ['QuotaForNewUser'])).toBeNull();
  });
});

describe('JSON shapes the server accepts', () => {
  it('ratio maps are objects of non-negative numbers', () => {
    expect(ratioMapIssue('{"default": 1, "vip": 0.5}')).toBeNull();
    expect(ratioMapIssue('[1]')).toEqual({ problem: 'notObject' });
    expect(ratioMapIssue('{"vip": "2"}')).toEqual({ problem: 'notNumber', entry: 'vip' });
    expect(ratioMapIssue('{"vip": -1}')).toEqual({ problem: 'notNumber', entry: 'vip' });
  });

  it('usable groups map names to descriptions', () => {
    expect(groupDescriptionsIssue('{"default": "默认分组"}')).toBeNull();
    expect(groupDescriptionsIssue('null')).toEqual({ problem: 'notObject' });
    expect(groupDescriptionsIssue('{"vip": 1}')).toEqual({ problem: 'notString', entry: 'vip' });
  });

  it('chats are an array of {name: link} objects, as the chat pages read them', () => {
    expect(chatsIssue('[]')).toBeNull();
    expect(chatsIssue('[{"ChatGPT Next Web": "https://chat.example.com/#/?settings={\\"key\\":\\"{key}\\",\\"url\\":\\"{address}\\"}"}]')).toBeNull();
    expect(chatsIssue('{"ChatGPT Next Web": "https://chat.example.com"}')).toEqual({ problem: 'notArray' });
    expect(chatsIssue('["https://chat.example.com"]')).toEqual({ problem: 'badChatEntry' });
    expect(chatsIssue('[{"Empty": ""}]')).toEqual({ problem: 'badChatEntry' });
  });

  it('leaves text that does not parse to the "不是合法的 JSON 字符串" check', () => {
    expect(ratioMapIssue('{"vip": ')).toBeNull();
    expect(groupDescriptionsIssue('')).toBeNull();
    expect(chatsIssue('[{')).toBeNull();
  });
});

describe('countSensitiveWords', () => {
  it('counts one word per line, ignoring blank lines, surrounding spaces and case repeats', () => {
    expect(countSensitiveWords('')).toEqual({ words: 0, duplicates: 0 });
    expect(countSensitiveWords('alpha\n\n  beta  \r\ngamma\n')).toEqual({ words: 3, duplicates: 0 });
    expect(countSensitiveWords('Alpha\nalpha\nbeta')).toEqual({ words: 2, duplicates: 1 });
  });
});

describe('quotaAsDollars', () => {
  it('divides by the quota per unit, up to six decimals', () => {
    expect(quotaAsDollars('500', '500000')).toBe('$0.001');
    expect(quotaAsDollars('1000000', '500000')).toBe('$2');
    expect(quotaAsDollars('1234567890', '500000')).toBe('$2,469.13578');
    expect(quotaAsDollars('1', '500000')).toBe('$0.000002');
    expect(quotaAsDollars('0', '500000')).toBe('$0');
  });

  it('answers null when either number is missing or unusable', () => {
    expect(quotaAsDollars('', '500000')).toBeNull();
    expect(quotaAsDollars('x', '500000')).toBeNull();
    expect(quotaAsDollars('10', '0')).toBeNull();
  });
});

describe('logCutoffSeconds', () => {
  it('is the chosen moment in whole Unix seconds', () => {
    expect(logCutoffSeconds(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 900)))).toBe(1704164645);
  });
});

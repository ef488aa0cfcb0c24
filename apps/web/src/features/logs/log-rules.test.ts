import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/logs.json';
import zh from '../../i18n/locales/zh/logs.json';
import { billingFormula, describeLog, filtersFromParams, firstTokenColour, parseOther, rowTypeKey, logUseTimeColour } from './log-rules';

describe('log colours (spec 02 §9)', () => {
  it('colours a use time green up to 100 s, orange under 300 s, red from 300 s', () => {
    expect([0, 100, 101, 299, 300, 1000].map(logUseTimeColour)).toEqual(['green', 'green', 'orange', 'orange', 'red', 'red']);
  });

  it('colours a first token green under 3 s, orange under 10 s, red beyond', () => {
    expect([0, 2999, 3000, 9999, 10000].map(firstTokenColour)).toEqual(['green', 'green', 'orange', 'orange', 'red']);
  });
});

describe('billing details from a row', () => {
  const row = { prompt_tokens: 100, completion_tokens: 50, quota: 525 };

  it('writes out a ratio charge with the stored numbers', () => {
    const details = parseOther('{"model_ratio":2.5,"completion_ratio":1.5,"group_ratio":1.2,"model_price":-1,"frt":420}');
    expect(details.frt).toBe(420);
    expect(billingFormula(details, row, 500_000)).toBe('(100 + 50 × 1.5) × 2.5 × 1.2 = 525');
  });

  it('writes out the cached part of the prompt with its cache ratio when the upstream reported cached tokens', () => {
    const cached = parseOther('{"model_ratio":2,"completion_ratio":3,"group_ratio":1.5,"model_price":-1,"cache_tokens":800,"cache_ratio":0.25}');
    expect(cached).toMatchObject({ cacheTokens: 800, cacheRatio: 0.25 });
    expect(billingFormula(cached, { prompt_tokens: 1000, completion_tokens: 100, quota: 2100 }, 500_000)).toBe(
      '(1000 − 800 + 800 × 0.25 + 100 × 3) × 2 × 1.5 = 2100',
    );
    // No cached tokens: the formula is the plain one.
    const none = parseOther('{"model_ratio":2,"completion_ratio":3,"group_ratio":1.5,"model_price":-1,"cache_tokens":0,"cache_ratio":0.25}');
    expect(billingFormula(none, { prompt_tokens: 1000, completion_tokens: 100, quota: 3900 }, 500_000)).toBe('(1000 + 100 × 3) × 2 × 1.5 = 3900');
  });

  it('writes out the part written into the cache with its cache-creation ratio (new-api’s cache_creation_tokens and cache_creation_ratio)', () => {
    const both = parseOther(
      '{"model_ratio":1.5,"completion_ratio":5,"group_ratio":2,"model_price":-1,"cache_tokens":2000,"cache_ratio":0.1,"cache_creation_tokens":800,"cache_creation_ratio":1.25}',
    );
    expect(both).toMatchObject({ cacheCreationTokens: 800, cacheCreationRatio: 1.25 });
    expect(billingFormula(both, { prompt_tokens: 2950, completion_tokens: 120, quota: 5850 }, 500_000)).toBe(
      '(2950 − 2000 − 800 + 2000 × 0.1 + 800 × 1.25 + 120 × 5) × 1.5 × 2 = 5850',
    );
    const written = parseOther(
      '{"model_ratio":1,"completion_ratio":1,"group_ratio":1,"model_price":-1,"cache_tokens":0,"cache_ratio":1,"cache_creation_tokens":300,"cache_creation_ratio":2}',
    );
    expect(billingFormula(written, { prompt_tokens: 400, completion_tokens: 0, quota: 700 }, 500_000)).toBe('(400 − 300 + 300 × 2 + 0 × 1) × 1 × 1 = 700');
  });

  it('writes out a fixed price as price × group ratio × quota per unit', () => {
    expect(billingFormula(parseOther('{"model_price":0.02,"group_ratio":0.5}'), { ...row, quota: 5000 }, 500_000)).toBe('0.02 × 0.5 × 500000 = 5000');
  });

  it('has no formula for rows without prices (top-ups, management) or with unreadable other', () => {
    expect(billingFormula(parseOther(''), row, 500_000)).toBeNull();
    expect(billingFormula(parseOther('not json'), row, 500_000)).toBeNull();
  });

  it('shows an unknown type (0) like consumption', () => {
    expect(rowTypeKey(0)).toBe('consume');
    expect(rowTypeKey(4)).toBe('system');
  });
});

describe('filters from the URL', () => {
  it('reads the filters and drops a type that does not exist', () => {
    const filters = filtersFromParams(new URLSearchParams('type=9&token_name=a&start=100&channel=3&username=bob'));
    expect(filters).toMatchObject({ type: 0, tokenName: 'a', start: 100, end: 0, channel: '3', username: 'bob' });
  });
});

describe('a row’s details in the reader’s language', () => {
  const texts = i18next.createInstance();
  let tEn: TFunction<'logs'>;
  let tZh: TFunction<'logs'>;
  beforeAll(async () => {
    await texts.init({
      resources: { en: { logs: en }, zh: { logs: zh } },
      lng: 'en',
      ns: ['logs'],
      interpolation: { escapeValue: false },
      showSupportNotice: false,
    });
    tEn = texts.getFixedT('en', 'logs') as unknown as TFunction<'logs'>;
    tZh = texts.getFixedT('zh', 'logs') as unknown as TFunction<'logs'>;
  });
  const dollars = (quota: number) => `$${(quota / 500_000).toFixed(2)}`;
  const both = (type: number, other: unknown, content = '原文') => {
    const row = { type, content, other: typeof other === 'string' ? other : JSON.stringify(other) };
    return [describeLog(row, tEn, dollars), describeLog(row, tZh, dollars)];
  };

  it('words a ratio-priced call, a fixed-price call and a Realtime call from their billing keys', () => {
    expect(both(2, { model_ratio: 0.075, completion_ratio: 4, group_ratio: 1, model_price: -1 }, '模型倍率 0.075，补全倍率 4，分组倍率 1')).toEqual([
      'Model ratio 0.075, completion ratio 4, group ratio 1',
      '模型倍率 0.075，补全倍率 4，分组倍率 1',
    ]);
    expect(both(2, { model_ratio: 0, completion_ratio: 1, group_ratio: 0.8, model_price: 0.02 })).toEqual([
      'Model price 0.02, group ratio 0.8',
      '模型价格 0.02，分组倍率 0.8',
    ]);
    expect(both(2, { model_ratio: 2.5, completion_ratio: 4, group_ratio: 1, model_price: -1, audio_ratio: 8, audio_completion_ratio: 2 })).toEqual([
      'Model ratio 2.5, completion ratio 4, audio ratio 8, audio completion ratio 2, group ratio 1',
      '模型倍率 2.5，补全倍率 4，音频倍率 8，音频补全倍率 2，分组倍率 1',
    ]);
  });

  it('adds the output cap, the listed words and a task’s action to a call’s words', () => {
    const other = { model_ratio: 1 / 3, completion_ratio: 1, group_ratio: 1.5, model_price: -1, output_cap: 120, sensitive_words: ['foo', 'bar'] };
    expect(both(2, other)).toEqual([
      'Model ratio 0.333333, completion ratio 1, group ratio 1.5, balance low, output limit lowered to 120 tokens, sensitive words: foo, bar',
      '模型倍率 0.333333，补全倍率 1，分组倍率 1.5，余额不足，输出上限降为 120 tokens，敏感词：foo, bar',
    ]);
    expect(both(2, { model_ratio: 0, group_ratio: 1, model_price: 0.1, task_action: 'IMAGINE', task_detail: 'ID 17' })).toEqual([
      'Model price 0.1, group ratio 1, action IMAGINE, ID 17',
      '模型价格 0.1，分组倍率 1，操作 IMAGINE，ID 17',
    ]);
  });

  it('words top-ups, balance changes and system rows from their kind, amounts in the console’s display', () => {
    expect(both(1, { kind: 'redeem', quota: 500_000 }, '通过兑换码充值 $1.00')).toEqual(['Top-up by redemption code $1.00', '通过兑换码充值 $1.00']);
    expect(both(1, { kind: 'online_topup', quota: 1_000_000, money: 14.5 })).toEqual([
      'Online top-up of $2.00, paid 14.50',
      '使用在线充值成功，充值金额: $2.00，支付金额：14.50',
    ]);
    expect(both(3, { kind: 'admin_add', quota: 250_000, admin_id: 1, admin_username: 'root' })).toEqual([
      'An administrator added $0.50 to the balance',
      '管理员增加用户额度 $0.50',
    ]);
    expect(both(3, { kind: 'admin_subtract', quota: 250_000 })).toEqual(['An administrator took $0.50 from the balance', '管理员减少用户额度 $0.50']);
    expect(both(3, { kind: 'admin_set', quota_before: 500_000, quota_after: 0 })).toEqual([
      'An administrator changed the balance from $1.00 to $0.00',
      '管理员将用户额度从 $1.00 修改为 $0.00',
    ]);
    expect(both(4, { kind: 'register_gift', quota: 50_000 })).toEqual(['Sign-up gift $0.10', '新用户注册赠送 $0.10']);
    expect(both(4, { kind: 'invitee_gift', quota: 50_000 })).toEqual(['Gift for signing up with an invitation code $0.10', '使用邀请码赠送 $0.10']);
    expect(both(4, { kind: 'inviter_reward', quota: 50_000 })).toEqual(['Reward for inviting a user $0.10', '邀请用户赠送 $0.10']);
    expect(both(4, { kind: 'aff_transfer', quota: 500_000 })).toEqual(['Invitation rewards moved to the balance $1.00', '邀请奖励划转到余额 $1.00']);
    expect(both(4, { kind: 'task_refund', quota: 50_000, task_table: 'midjourneys', task_id: 'mj-9' })).toEqual([
      'Drawing mj-9 failed, refunded $0.10',
      '构图失败 mj-9，补偿 $0.10',
    ]);
    expect(both(4, { kind: 'task_refund', quota: 50_000, task_table: 'tasks', task_id: 's-1' })).toEqual([
      'Async task s-1 failed, refunded $0.10',
      '异步任务执行失败 s-1，补偿 $0.10',
    ]);
    const view = { kind: 'token_key_view', op: { params: { target_user_id: 7, target_username: 'alice', token_id: 3, token_name: 'prod' } } };
    expect(both(3, view)).toEqual([
      'The root user viewed the key of token “prod” (ID 3) of user alice (ID 7)',
      '超级管理员查看了用户 alice（ID 7）的令牌「prod」（ID 3）的密钥',
    ]);
  });

  it('shows the content as written for rows without structured fields: old, imported, unknown kinds, broken JSON', () => {
    expect(both(1, '', '通过兑换码充值 $1.00')).toEqual(['通过兑换码充值 $1.00', '通过兑换码充值 $1.00']);
    expect(both(3, { admin_id: 1, admin_username: 'root' }, '管理员增加用户额度 $1.00')).toEqual(['管理员增加用户额度 $1.00', '管理员增加用户额度 $1.00']);
    expect(both(4, { kind: 'something_new', quota: 1 }, '新事件')).toEqual(['新事件', '新事件']);
    expect(both(2, '{not json', '模型倍率 1')).toEqual(['模型倍率 1', '模型倍率 1']);
    expect(both(2, { frt: 20 }, '模型倍率 1')).toEqual(['模型倍率 1', '模型倍率 1']);
  });
});

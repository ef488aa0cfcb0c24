import { describe, expect, it } from 'vitest';
import { ChannelType } from '@modelgate/contract';
import { formatBalance, overrunInfo } from './channel-display';
import { presetModelsFor } from './channel-rules';

const withInfo = (otherInfo: string) => ({ other_info: otherInfo });

describe('overrunInfo', () => {
  it('reads the quota not charged and the time of the latest overrun from other_info', () => {
    expect(overrunInfo(withInfo('{"overrun_quota": 1250, "overrun_time": 1767225600}'))).toEqual({ quota: 1250, cuts: 0, time: 1767225600 });
    // Written beside what an automatic disable leaves there.
    expect(overrunInfo(withInfo('{"status_reason": "upstream said 401", "status_time": 1, "overrun_quota": 0.5, "overrun_time": 2}'))).toEqual({
      quota: 0.5,
      cuts: 0,
      time: 2,
    });
  });

  it('counts the streams cut at their cap, with or without quota not charged', () => {
    expect(overrunInfo(withInfo('{"overrun_quota": 0, "limit_ignored": 3, "overrun_time": 5}'))).toEqual({ quota: 0, cuts: 3, time: 5 });
    expect(overrunInfo(withInfo('{"overrun_quota": 9, "limit_ignored": 2}'))).toEqual({ quota: 9, cuts: 2, time: 0 });
  });

  it('is null while nothing went uncharged', () => {
    // The wire's other_info is always a string; the rule still reads a missing one as nothing.
    expect(overrunInfo({ other_info: null as unknown as string })).toBeNull();
    expect(overrunInfo(withInfo(''))).toBeNull();
    expect(overrunInfo(withInfo('{}'))).toBeNull();
    expect(overrunInfo(withInfo('{"status_reason": "upstream said 401", "status_time": 1}'))).toBeNull();
    expect(overrunInfo(withInfo('{"overrun_quota": 0, "overrun_time": 1767225600}'))).toBeNull();
    expect(overrunInfo(withInfo('{"overrun_quota": -3}'))).toBeNull();
  });

  it('ignores other_info it cannot read', () => {
    expect(overrunInfo(withInfo('{"overrun_quota": '))).toBeNull();
    expect(overrunInfo(withInfo('[1250]'))).toBeNull();
    expect(overrunInfo(withInfo('null'))).toBeNull();
    expect(overrunInfo(withInfo('{"overrun_quota": "1250"}'))).toBeNull();
  });

  it('keeps the quota when the time is missing or unusable (shown as "-")', () => {
    expect(overrunInfo(withInfo('{"overrun_quota": 40}'))).toEqual({ quota: 40, cuts: 0, time: 0 });
    expect(overrunInfo(withInfo('{"overrun_quota": 40, "overrun_time": "soon"}'))).toEqual({ quota: 40, cuts: 0, time: 0 });
  });
});

describe("what a type's contract row shows in the table and the form", () => {
  it('writes SiliconCloud and DeepSeek balances in yuan, the others in US dollars', () => {
    expect(formatBalance(ChannelType.SiliconFlow, 12.5)).toBe('¥12.50');
    expect(formatBalance(ChannelType.DeepSeek, 3)).toBe('¥3.00');
    expect(formatBalance(ChannelType.OpenAI, 7.125)).toBe('$7.13');
    expect(formatBalance(ChannelType.OpenRouter, 1)).toBe('$1.00');
    expect(formatBalance(999, 1)).toBe('$1.00');
  });

  it('fills Midjourney channels with their action models, Plus with its extra ones, other types from the catalogue', () => {
    expect(presetModelsFor(ChannelType.Midjourney)).toEqual(['mj_imagine', 'mj_variation', 'mj_reroll', 'mj_blend', 'mj_upscale', 'mj_describe', 'mj_uploads']);
    const plus = presetModelsFor(ChannelType.MidjourneyPlus);
    expect(plus).toHaveLength(16);
    expect(plus).toEqual(expect.arrayContaining(['swap_face', 'mj_pan', 'mj_imagine']));
    expect(presetModelsFor(ChannelType.OpenAI)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { overrunInfo } from './channel-display';

const withInfo = (otherInfo: string | null) => ({ other_info: otherInfo });

describe('overrunInfo', () => {
  it('reads the quota not charged and the time of the latest overrun from other_info', () => {
    expect(overrunInfo(withInfo('{"overrun_quota": 1250, "overrun_time": 1767225600}'))).toEqual({ quota: 1250, time: 1767225600 });
    // Written beside what an automatic disable leaves there.
    expect(overrunInfo(withInfo('{"status_reason": "upstream said 401", "status_time": 1, "overrun_quota": 0.5, "overrun_time": 2}'))).toEqual({
      quota: 0.5,
      time: 2,
    });
  });

  it('is null while nothing went uncharged', () => {
    expect(overrunInfo(withInfo(null))).toBeNull();
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
    expect(overrunInfo(withInfo('{"overrun_quota": 40}'))).toEqual({ quota: 40, time: 0 });
    expect(overrunInfo(withInfo('{"overrun_quota": 40, "overrun_time": "soon"}'))).toEqual({ quota: 40, time: 0 });
  });
});

import { describe, expect, it } from 'vitest';
import { rateLimitEntries, rateLimitMapIssue, requestLimitGroupIssue } from './rate-limit-rules';

describe('the rate-limit options', () => {
  it('take name → {rpm, tpm, rpd, concurrency} of whole numbers, each optional', () => {
    expect(rateLimitMapIssue('{}')).toBeNull();
    expect(rateLimitMapIssue('{"vip": {"rpm": 60, "tpm": 100000, "rpd": 0, "concurrency": 4}, "default": {}}')).toBeNull();
    expect(rateLimitMapIssue('[]')).toEqual({ problem: 'notObject' });
    expect(rateLimitMapIssue('{"vip": {"rpm": -1}}')).toEqual({ problem: 'badRateLimit', entry: 'vip' });
    expect(rateLimitMapIssue('{"vip": {"rpm": 1.5}}')).toEqual({ problem: 'badRateLimit', entry: 'vip' });
    expect(rateLimitMapIssue('{"vip": {"rps": 5}}')).toEqual({ problem: 'badRateLimit', entry: 'vip' });
    expect(rateLimitMapIssue('{"vip": {"rpm": 2147483648}}')).toEqual({ problem: 'badRateLimit', entry: 'vip' });
    expect(rateLimitMapIssue('{"vip": 60}')).toEqual({ problem: 'badRateLimit', entry: 'vip' });
    // Syntax is the other check's.
    expect(rateLimitMapIssue('{"vip": ')).toBeNull();
  });

  it('take new-api’s group → [count, success count], the success count at least 1', () => {
    expect(requestLimitGroupIssue('{"default": [200, 100], "vip": [0, 1000]}')).toBeNull();
    expect(requestLimitGroupIssue('{"vip": [10, 0]}')).toEqual({ problem: 'badRequestLimit', entry: 'vip' });
    expect(requestLimitGroupIssue('{"vip": [-1, 5]}')).toEqual({ problem: 'badRequestLimit', entry: 'vip' });
    expect(requestLimitGroupIssue('{"vip": [1]}')).toEqual({ problem: 'badRequestLimit', entry: 'vip' });
    expect(requestLimitGroupIssue('[1, 2]')).toEqual({ problem: 'notObject' });
  });

  it('reads the entries for the card’s tags, or null when they cannot be read', () => {
    expect(rateLimitEntries('{"vip": {"rpm": 60, "concurrency": 4}}')).toEqual([
      { name: 'vip', figures: { rpm_limit: 60, tpm_limit: 0, rpd_limit: 0, concurrency_limit: 4 } },
    ]);
    expect(rateLimitEntries('{"vip": {"rpm": -1}}')).toBeNull();
    expect(rateLimitEntries('nope')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { BucketCounts, MAX_SERIES, OTHER_MODEL, RelayMetrics } from './relay-metrics.js';

describe('BucketCounts', () => {
  it('counts a value equal to a bound in that bound (Prometheus le), and above every bound only in +Inf', () => {
    const buckets = new BucketCounts([0.1, 1, 10]);
    for (const value of [0.05, 0.1, 0.5, 1, 11]) buckets.observe(value);
    expect(buckets.cumulative()).toEqual([2, 4, 4, 5]);
    expect(buckets.count).toBe(5);
    expect(buckets.sum).toBeCloseTo(12.65);
  });
});

describe('RelayMetrics', () => {
  it('adds calls of one label set into one series and keeps label sets apart', () => {
    const metrics = new RelayMetrics();
    metrics.served('/v1/chat/completions', 'gpt-4o', 3, 200, 120, 40);
    metrics.served('/v1/chat/completions', 'gpt-4o', 3, 200, 80, 20);
    metrics.served('/v1/chat/completions', 'gpt-4o', 4, 200, 80, 20);
    metrics.failed('/v1/chat/completions', 'gpt-4o', 503, 5);
    expect(metrics.requests.map((series) => [series.channel, series.status, series.count, series.latency.count, series.firstToken.count])).toEqual([
      [3, 200, 2, 2, 2],
      [4, 200, 1, 1, 1],
      [0, 503, 1, 1, 0],
    ]);
    metrics.charged('gpt-4o', 3, 150);
    metrics.charged('gpt-4o', 3, 50);
    expect(metrics.quota).toEqual([{ model: 'gpt-4o', channel: 3, quota: 200, calls: 2 }]);
    metrics.upstreamError(4, 'connection');
    metrics.upstreamError(4, 'connection');
    expect(metrics.upstreamErrors.filter((series) => series.count > 0)).toEqual([{ channel: 4, kind: 'connection', count: 2 }]);
  });

  it('folds new models into _other_ once MAX_SERIES label sets exist, so made-up model names cannot grow it without bound', () => {
    const metrics = new RelayMetrics();
    for (let index = 0; index < MAX_SERIES + 50; index += 1) {
      metrics.failed('/v1/chat/completions', `made-up-${index}`, 503, 1);
      metrics.charged(`made-up-${index}`, 1, 1);
    }
    expect(metrics.requests.length).toBe(MAX_SERIES + 1);
    expect(metrics.requests.at(-1)).toMatchObject({ model: OTHER_MODEL, count: 50 });
    expect(metrics.quota.length).toBe(MAX_SERIES + 1);
    expect(metrics.quota.at(-1)).toMatchObject({ model: OTHER_MODEL, quota: 50, calls: 50 });
    // A model already counted keeps its own series.
    metrics.failed('/v1/chat/completions', 'made-up-0', 503, 1);
    expect(metrics.requests[0]!.count).toBe(2);
  });

  it('folds the channels of one model past MAX_SERIES into _other_ as well (a model served by 10,000 channels)', () => {
    const metrics = new RelayMetrics();
    for (let channel = 1; channel <= MAX_SERIES + 50; channel += 1) {
      metrics.served('/v1/chat/completions', 'gpt-4o-mini', channel, 200, 1, 1);
      metrics.charged('gpt-4o-mini', channel, 2);
    }
    expect(metrics.requests.length).toBe(MAX_SERIES + 1);
    expect(metrics.requests.at(-1)).toMatchObject({ model: OTHER_MODEL, channel: 0, count: 50 });
    expect(metrics.quota.length).toBe(MAX_SERIES + 1);
    expect(metrics.quota.at(-1)).toMatchObject({ model: OTHER_MODEL, channel: 0, quota: 100, calls: 50 });
    expect(metrics.requests.reduce((sum, series) => sum + series.count, 0)).toBe(MAX_SERIES + 50);
  });
});

import { describe, expect, it } from 'vitest';
import type { QuotaDataRow } from './api';
import {
  type ChartData,
  axisDigits,
  maxBucketQuota,
  bucketLabel,
  bucketStart,
  buildChartData,
  defaultRange,
  fitView,
  formatRate,
  MAX_FILLED_BUCKETS,
  modelColourVariable,
  parseGranularity,
  rangeProblem,
  SELF_MAX_SPAN_SECONDS,
  summarize,
} from './detail-rules';

const HOUR = 3600;
const DAY = 86_400;
/** Local wall-clock time in Unix seconds, so the tests hold in any time zone. */
const local = (year: number, month: number, day: number, hours = 0, minutes = 0) => new Date(year, month - 1, day, hours, minutes).getTime() / 1000;

const row = (model_name: string, created_at: number, count: number, quota: number, token_used: number): QuotaDataRow => ({
  id: 0,
  user_id: 7,
  username: 'alice',
  model_name,
  created_at,
  count,
  quota,
  token_used,
});

describe('granularity and default range', () => {
  it('takes the status default and falls back to hour', () => {
    expect(['hour', 'day', 'week', 'month', undefined, 3].map(parseGranularity)).toEqual(['hour', 'day', 'week', 'hour', 'hour', 'hour']);
  });

  it('looks back 1, 7 or 30 days of whole hours ending with the current one, never past the 30-day limit', () => {
    const now = local(2026, 11, 23, 14, 37);
    const hourStart = local(2026, 11, 23, 14);
    expect(defaultRange('hour', now)).toEqual({ start: hourStart - 23 * HOUR, end: now });
    expect(defaultRange('day', now)).toEqual({ start: hourStart - (7 * 24 - 1) * HOUR, end: now });
    const month = defaultRange('week', now);
    expect(month.start).toBe(hourStart - (30 * 24 - 1) * HOUR);
    expect(month.end - month.start).toBeLessThanOrEqual(SELF_MAX_SPAN_SECONDS);
    expect(rangeProblem(month, false)).toBeNull();
  });
});

describe('range checks', () => {
  it('refuses an empty or reversed range', () => {
    expect(rangeProblem({ start: 0, end: 100 }, false)).toBe('missing');
    expect(rangeProblem({ start: 200, end: 200 }, true)).toBe('order');
    expect(rangeProblem({ start: 300, end: 200 }, false)).toBe('order');
  });

  it('limits a user to 30 days, as the server does, but not an admin', () => {
    const end = local(2026, 11, 23);
    expect(rangeProblem({ start: end - 30 * DAY, end }, false)).toBeNull();
    expect(rangeProblem({ start: end - 30 * DAY - 1, end }, false)).toBe('tooLong');
    expect(rangeProblem({ start: end - 365 * DAY, end }, true)).toBeNull();
  });
});

describe('buckets', () => {
  it('starts an hour, a local day and a local week from Monday', () => {
    const at = local(2026, 11, 26, 15, 20); // a Thursday
    expect(bucketStart(at, 'hour')).toBe(local(2026, 11, 26, 15));
    expect(bucketStart(at, 'day')).toBe(local(2026, 11, 26));
    expect(bucketStart(at, 'week')).toBe(local(2026, 11, 23));
    expect(bucketStart(local(2026, 11, 29, 23), 'week')).toBe(local(2026, 11, 23)); // Sunday ends the week
    expect(bucketStart(local(2026, 11, 30), 'week')).toBe(local(2026, 11, 30));
  });

  it('labels buckets in local time', () => {
    expect(bucketLabel(local(2026, 11, 3, 9), 'hour')).toBe('11-03 09:00');
    expect(bucketLabel(local(2026, 11, 3), 'day')).toBe('2026-11-03');
    expect(bucketLabel(local(2026, 12, 28), 'week')).toBe('12-28 ~ 01-03');
  });
});

describe('cards', () => {
  it('sums quota, tokens and calls and averages them per minute of the range', () => {
    const start = local(2026, 11, 23);
    const rows = [row('gpt-4o', start, 3, 1500, 900), row('gpt-4o-mini', start + HOUR, 1, 500, 300)];
    const summary = summarize(rows, { start, end: start + 2 * HOUR });
    expect(summary).toEqual({ quota: 2000, tokens: 1200, count: 4, rpm: 4 / 120, tpm: 10 });
    expect(formatRate(summary.rpm)).toBe('0.033');
    expect(formatRate(10)).toBe('10');
    expect(formatRate(2.5)).toBe('2.5');
    expect(formatRate(40)).toBe('40');
    // Three calls in a week: not 0.
    expect(formatRate(3 / (7 * 24 * 60))).toBe('0.0003');
    expect(formatRate(0.00000123)).toBe('0.0000012');
    expect(formatRate(0)).toBe('0');
  });

  it('is all zeros without rows', () => {
    expect(summarize([], { start: 0, end: 0 })).toEqual({ quota: 0, tokens: 0, count: 0, rpm: 0, tpm: 0 });
  });
});

describe('chart data', () => {
  const monday = local(2026, 11, 16);
  const rows = [
    row('gpt-4o-mini', monday + 9 * HOUR, 5, 100, 1000),
    row('gpt-4o', monday + 9 * HOUR, 1, 700, 50),
    row('gpt-4o-mini', monday + 10 * HOUR, 2, 40, 400),
    row('gpt-4o', monday + 2 * DAY + 3 * HOUR, 1, 300, 60),
    row('gpt-4o-mini', monday + 8 * DAY, 1, 20, 200),
  ];
  const range = { start: monday, end: monday + 9 * DAY - 1 };

  it('sums rows per day, draws empty days too, and orders models by quota and calls by count', () => {
    const data = buildChartData(rows, range, 'day');
    expect(data.buckets).toHaveLength(9);
    expect(data.buckets[0]).toEqual({ start: monday, label: bucketLabel(monday, 'day'), tokens: 1450, quota: { 'gpt-4o-mini': 140, 'gpt-4o': 700 } });
    expect(data.buckets[1]).toMatchObject({ tokens: 0, quota: {} });
    expect(data.buckets[2]).toMatchObject({ tokens: 60, quota: { 'gpt-4o': 300 } });
    expect(data.buckets[8]).toMatchObject({ tokens: 200, quota: { 'gpt-4o-mini': 20 } });
    expect(data.models).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(data.calls).toEqual([
      { model: 'gpt-4o-mini', count: 8 },
      { model: 'gpt-4o', count: 2 },
    ]);
  });

  it('re-buckets the same rows per week and per hour without losing any quota', () => {
    const total = (granularity: 'hour' | 'day' | 'week') =>
      buildChartData(rows, range, granularity).buckets.reduce((sum, bucket) => sum + Object.values(bucket.quota).reduce((a, b) => a + b, 0), 0);
    const weeks = buildChartData(rows, range, 'week').buckets;
    expect(weeks.map((bucket) => bucket.start)).toEqual([monday, monday + 7 * DAY]);
    expect(weeks[0]!.quota).toEqual({ 'gpt-4o-mini': 140, 'gpt-4o': 1000 });
    expect(buildChartData(rows, range, 'hour').buckets).toHaveLength(9 * 24);
    expect([total('hour'), total('day'), total('week')]).toEqual([1160, 1160, 1160]);
  });

  it('keeps only buckets with data when the range holds too many to draw', () => {
    const long = { start: monday - 400 * DAY, end: monday + 9 * DAY };
    expect((long.end - long.start) / HOUR).toBeGreaterThan(MAX_FILLED_BUCKETS);
    expect(buildChartData(rows, long, 'hour').buckets.map((bucket) => bucket.start)).toEqual([
      monday + 9 * HOUR,
      monday + 10 * HOUR,
      monday + 2 * DAY + 3 * HOUR,
      monday + 8 * DAY,
    ]);
    expect(buildChartData(rows, long, 'day').buckets).toHaveLength(410);
  });

  it('gives models Semi’s 20 data colours in turn', () => {
    expect([0, 1, 19, 20].map(modelColourVariable)).toEqual(['--semi-color-data-0', '--semi-color-data-1', '--semi-color-data-19', '--semi-color-data-0']);
  });
});

describe('the quota axis', () => {
  const dollars = (quota: number, digits: number) => {
    const amount = quota / 500_000;
    const fixed = amount.toFixed(digits);
    return Number(fixed) === 0 && quota !== 0 ? `≈$${(1 / 10 ** digits).toFixed(digits)}` : `$${fixed}`;
  };

  it('keeps two decimals when they tell the ticks apart', () => {
    expect(axisDigits(500_000 * 40, dollars)).toBe(2);
  });

  it('takes more decimals for a range of fractions of a cent, so no two ticks read the same', () => {
    // The highest bucket is $0.012: ticks of $0.003, $0.006, $0.009, $0.012.
    const digits = axisDigits(6_000, dollars);
    expect(digits).toBe(3);
    const labels = [1, 2, 3, 4].map((step) => dollars((6_000 * step) / 4, digits));
    expect(new Set(labels).size).toBe(4);
    expect(axisDigits(60, dollars)).toBe(5);
  });

  it('finds the largest bucket over all its models', () => {
    const data: ChartData = {
      buckets: [
        { start: 0, label: 'a', tokens: 0, quota: { m1: 3, m2: 4 } },
        { start: 1, label: 'b', tokens: 0, quota: { m1: 5 } },
      ],
      models: [],
      calls: [],
    };
    expect(maxBucketQuota(data)).toBe(7);
    expect(axisDigits(0, dollars)).toBe(2);
  });
});

describe('the default view fits the data (issue 29)', () => {
  // Opened at 14:20 on 2026-11-23, local time; the status default is 'day', so the last 7 × 24 hours were fetched.
  const now = local(2026, 11, 23, 14, 20);
  const fetched = defaultRange('day', now);
  const at = (seconds: number) => row('gpt-4o-mini', seconds, 1, 100, 10);

  it('draws calls of the last hour per hour over the last 12 hours, not one bar at the edge of a week', () => {
    const view = fitView([at(local(2026, 11, 23, 14))], fetched, 'day');
    expect(view).toEqual({ granularity: 'hour', range: { start: local(2026, 11, 23, 3), end: now } });
    const chart = buildChartData([at(local(2026, 11, 23, 14))], view.range, view.granularity);
    expect(chart.buckets).toHaveLength(12);
    expect(chart.buckets.at(-1)).toMatchObject({ label: '11-23 14:00', quota: { 'gpt-4o-mini': 100 } });
  });

  it('starts an hourly view at the first data point when that is more than 12 hours back', () => {
    const view = fitView([at(local(2026, 11, 22, 9)), at(local(2026, 11, 23, 13))], fetched, 'day');
    expect(view).toEqual({ granularity: 'hour', range: { start: local(2026, 11, 22, 9), end: now } });
    expect(buildChartData([], view.range, view.granularity).buckets).toHaveLength(30);
  });

  it('draws data of several days per day over whole days, at least the last 7', () => {
    const view = fitView([at(local(2026, 11, 20, 18)), at(local(2026, 11, 23, 1))], fetched, 'day');
    expect(view).toEqual({ granularity: 'day', range: { start: local(2026, 11, 17), end: now } });
    // A week fetched from 15:00 six days ago: the fitted range does not reach before it.
    const week = fitView([at(fetched.start + HOUR)], fetched, 'hour');
    expect(week).toEqual({ granularity: 'day', range: { start: fetched.start, end: now } });
  });

  it('draws data of months per week, from the first data point’s week', () => {
    const range = { start: local(2026, 6, 1), end: now };
    const view = fitView([at(local(2026, 7, 15, 10)), at(local(2026, 11, 2))], range, 'day');
    // 2026-07-13 is the Monday of that week.
    expect(view).toEqual({ granularity: 'week', range: { start: local(2026, 7, 13), end: now } });
  });

  it('keeps the fetched range and the status granularity when there is nothing to draw', () => {
    expect(fitView([], fetched, 'day')).toEqual({ range: fetched, granularity: 'day' });
  });

  it('keeps every fetched row inside the view, so the cards sum the same rows as before', () => {
    const rows = [at(fetched.start), at(local(2026, 11, 21, 5)), at(local(2026, 11, 23, 14))];
    const view = fitView(rows, fetched, 'hour');
    expect(rows.every((r) => r.created_at >= view.range.start && r.created_at <= view.range.end)).toBe(true);
    expect(summarize(rows, view.range).count).toBe(3);
  });
});

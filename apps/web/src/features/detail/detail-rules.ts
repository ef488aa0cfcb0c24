import type { QuotaDataRow } from './api';

export const GRANULARITIES = ['hour', 'day', 'week'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

const HOUR = 3600;
const DAY = 24 * HOUR;

/** The server's limit (GET /api/data/self): a user may ask for at most 30 days at once. */
export const SELF_MAX_SPAN_SECONDS = 30 * DAY;

/** Drawn time buckets at most; a longer range at a fine granularity keeps only the buckets with data. */
export const MAX_FILLED_BUCKETS = 1500;

/** status.data_export_default_time, or 'hour' (new-api's default) when absent or unknown. */
export function parseGranularity(value: unknown): Granularity {
  return (GRANULARITIES as readonly unknown[]).includes(value) ? (value as Granularity) : 'hour';
}

/** How far back the screen looks by default for each granularity, as new-api's dashboard does. */
const DEFAULT_DAYS: Record<Granularity, number> = { hour: 1, day: 7, week: 30 };

export interface TimeRange {
  /** Unix seconds. */
  start: number;
  end: number;
}

/**
 * The last N days as the N×24 hourly rows that end with the current hour: rows are stored per
 * whole hour, so the range starts on an hour and never spans more than N days (30 fits the
 * server's limit for users).
 */
export function defaultRange(granularity: Granularity, nowSeconds: number): TimeRange {
  const end = Math.floor(nowSeconds);
  const currentHour = end - (end % HOUR);
  return { start: currentHour - (DEFAULT_DAYS[granularity] * 24 - 1) * HOUR, end };
}

export type RangeProblem = 'missing' | 'order' | 'tooLong';

/** Why a range cannot be asked for, or null; only a user's own view has the 30-day limit. */
export function rangeProblem(range: TimeRange, admin: boolean): RangeProblem | null {
  if (!range.start || !range.end) return 'missing';
  if (range.end <= range.start) return 'order';
  if (!admin && range.end - range.start > SELF_MAX_SPAN_SECONDS) return 'tooLong';
  return null;
}

/** The start of the bucket holding `seconds`: the hour, the local day, or the local week from Monday. */
export function bucketStart(seconds: number, granularity: Granularity): number {
  if (granularity === 'hour') return seconds - (((seconds % HOUR) + HOUR) % HOUR);
  const date = new Date(seconds * 1000);
  date.setHours(0, 0, 0, 0);
  if (granularity === 'week') date.setDate(date.getDate() - ((date.getDay() + 6) % 7));
  return Math.floor(date.getTime() / 1000);
}

function nextBucket(start: number, granularity: Granularity): number {
  if (granularity === 'hour') return start + HOUR;
  // Calendar arithmetic, so a daylight-saving day of 23 or 25 hours still ends at midnight.
  const date = new Date(start * 1000);
  date.setDate(date.getDate() + (granularity === 'week' ? 7 : 1));
  return Math.floor(date.getTime() / 1000);
}

function previousBucket(start: number, granularity: Granularity): number {
  if (granularity === 'hour') return start - HOUR;
  const date = new Date(start * 1000);
  date.setDate(date.getDate() - (granularity === 'week' ? 7 : 1));
  return Math.floor(date.getTime() / 1000);
}

/** Bars a fitted view shows at least: half a day of hours, a week of days, four weeks. */
const MIN_BUCKETS: Record<Granularity, number> = { hour: 12, day: 7, week: 4 };
/** Data spanning up to two days is drawn per hour, up to about two months per day, longer per week. */
const HOURLY_SPAN = 2 * DAY;
const DAILY_SPAN = 62 * DAY;

export interface DetailView {
  range: TimeRange;
  granularity: Granularity;
}

/**
 * The view that fits the rows fetched for `range` (issue 29: calls of the last hour are not one bar
 * squeezed at the edge of a 7-day chart). The granularity follows how far back the data goes from
 * the range's end: hours for up to two days, days for up to ~two months, weeks beyond. The range
 * starts at the first data point's bucket, or earlier so that at least MIN_BUCKETS bars show, never
 * before the range fetched; whole buckets, so the first bar is not a partial one. Without rows the
 * range and the fallback granularity stay. The page applies it only to what the user has not chosen
 * (a range or granularity in the URL is kept); every fetched row lies inside the fitted range.
 */
export function fitView(rows: readonly QuotaDataRow[], range: TimeRange, fallback: Granularity): DetailView {
  if (rows.length === 0) return { range, granularity: fallback };
  let first = Number.POSITIVE_INFINITY;
  for (const row of rows) first = Math.min(first, row.created_at);
  first = Math.max(first, range.start);
  const span = range.end - first;
  const granularity: Granularity = span <= HOURLY_SPAN ? 'hour' : span <= DAILY_SPAN ? 'day' : 'week';
  let start = bucketStart(range.end, granularity);
  for (let shown = 1; shown < MIN_BUCKETS[granularity]; shown += 1) start = previousBucket(start, granularity);
  start = Math.min(start, bucketStart(first, granularity));
  return { range: { start: Math.max(start, range.start), end: range.end }, granularity };
}

const pad = (value: number) => String(value).padStart(2, '0');
const monthDay = (date: Date) => `${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/** A bucket's axis label in local time: "11-23 14:00", "2026-11-23", or the week "11-16 ~ 11-22". */
export function bucketLabel(start: number, granularity: Granularity): string {
  const date = new Date(start * 1000);
  if (granularity === 'hour') return `${monthDay(date)} ${pad(date.getHours())}:00`;
  if (granularity === 'day') return `${date.getFullYear()}-${monthDay(date)}`;
  const lastDay = new Date(date);
  lastDay.setDate(lastDay.getDate() + 6);
  return `${monthDay(date)} ~ ${monthDay(lastDay)}`;
}

export interface UsageSummary {
  quota: number;
  tokens: number;
  count: number;
  /** Requests and tokens per minute, averaged over the whole range. */
  rpm: number;
  tpm: number;
}

/** The cards: totals of the rows, and RPM/TPM as count or tokens over the range's minutes. */
export function summarize(rows: readonly QuotaDataRow[], range: TimeRange): UsageSummary {
  let quota = 0;
  let tokens = 0;
  let count = 0;
  for (const row of rows) {
    quota += row.quota;
    tokens += row.token_used;
    count += row.count;
  }
  const minutes = Math.max(range.end - range.start, 0) / 60;
  return { quota, tokens, count, rpm: minutes > 0 ? count / minutes : 0, tpm: minutes > 0 ? tokens / minutes : 0 };
}

/**
 * An average with at most three decimals and no trailing zeros (0.125, 2.5, 40); a rate too small
 * for three decimals keeps two significant digits (0.00029), so a range with calls never reads 0.
 */
export function formatRate(value: number): string {
  if (!Number.isFinite(value) || value === 0) return '0';
  const magnitude = Math.abs(value);
  const decimals = magnitude >= 0.001 ? 3 : Math.min(1 - Math.floor(Math.log10(magnitude)), 20);
  return value.toFixed(decimals).replace(/\.?0+$/, '');
}

/** One time bucket of the charts: quota per model under the model's name, and the tokens of all models. */
export interface Bucket {
  start: number;
  label: string;
  tokens: number;
  quota: Record<string, number>;
}

export interface ModelCalls {
  model: string;
  count: number;
}

export interface ChartData {
  buckets: Bucket[];
  /** Models by quota spent, largest first; this order fixes each model's colour. */
  models: string[];
  /** Calls per model, most first. */
  calls: ModelCalls[];
}

/**
 * Sums the hourly rows into buckets of the chosen granularity. Every bucket of the range is drawn,
 * empty ones too, so gaps in use show as gaps; past MAX_FILLED_BUCKETS only buckets with data are.
 */
export function buildChartData(rows: readonly QuotaDataRow[], range: TimeRange, granularity: Granularity): ChartData {
  const byBucket = new Map<number, Bucket>();
  const quotaByModel = new Map<string, number>();
  const callsByModel = new Map<string, number>();
  const bucketAt = (start: number): Bucket => {
    let bucket = byBucket.get(start);
    if (!bucket) {
      bucket = { start, label: bucketLabel(start, granularity), tokens: 0, quota: {} };
      byBucket.set(start, bucket);
    }
    return bucket;
  };

  const first = bucketStart(range.start, granularity);
  const last = bucketStart(range.end, granularity);
  let filled = 0;
  for (let start = first; start <= last && filled < MAX_FILLED_BUCKETS; start = nextBucket(start, granularity)) filled += 1;
  if (filled < MAX_FILLED_BUCKETS) {
    for (let start = first; start <= last; start = nextBucket(start, granularity)) bucketAt(start);
  }

  for (const row of rows) {
    const bucket = bucketAt(bucketStart(row.created_at, granularity));
    bucket.tokens += row.token_used;
    bucket.quota[row.model_name] = (bucket.quota[row.model_name] ?? 0) + row.quota;
    quotaByModel.set(row.model_name, (quotaByModel.get(row.model_name) ?? 0) + row.quota);
    callsByModel.set(row.model_name, (callsByModel.get(row.model_name) ?? 0) + row.count);
  }

  const byName = (left: string, right: string) => left.localeCompare(right);
  const models = [...quotaByModel.keys()].sort((left, right) => quotaByModel.get(right)! - quotaByModel.get(left)! || byName(left, right));
  const calls = [...callsByModel]
    .map(([model, count]) => ({ model, count }))
    .sort((left, right) => right.count - left.count || byName(left.model, right.model));
  const buckets = [...byBucket.values()].sort((left, right) => left.start - right.start);
  return { buckets, models, calls };
}

/** Semi's 20 data-visualisation colours (both themes define them); models past 20 reuse them. */
export function modelColourVariable(index: number): string {
  return `--semi-color-data-${((index % 20) + 20) % 20}`;
}

/**
 * Decimal places for the quota axis: the fewest (from 2, at most 6) that give the axis's ticks
 * distinct labels. A week of cheap calls has ticks of fractions of a cent, which two decimals all
 * print as "$0.01". `format(quota, digits)` is the console's money format.
 */
export function axisDigits(maxBucketQuota: number, format: (quota: number, digits: number) => string): number {
  if (!(maxBucketQuota > 0)) return 2;
  const ticks = [1, 2, 3, 4].map((step) => (maxBucketQuota * step) / 4);
  for (let digits = 2; digits < 6; digits += 1) {
    const labels = ticks.map((tick) => format(tick, digits));
    if (new Set(labels).size === labels.length && !labels.some((label) => label.startsWith('≈'))) return digits;
  }
  return 6;
}

/** The largest quota of one bucket (all its models together). */
export const maxBucketQuota = (data: ChartData): number =>
  data.buckets.reduce(
    (max, bucket) =>
      Math.max(
        max,
        Object.values(bucket.quota).reduce((sum, quota) => sum + quota, 0),
      ),
    0,
  );

import type { LogInsert } from '../apps/server/src/domain/logs/log-buffer.js';
import { modelName, tokenName, userName, type SeedPlan } from './logs-seed.js';

/**
 * The requests the logs bench times: what the console's log screen sends (page 1 of 10 rows with
 * one filter or several, and the stat chips), for an admin on every row and for a user on its own.
 * Each case also says which seeded rows it selects, so the bench checks every answer's `total`,
 * newest id and `quota` against the rows it wrote: a fast wrong answer fails.
 */

export type CaseKind = 'page' | 'stat' | 'dashboard';

export interface LogCase {
  label: string;
  kind: CaseKind;
  /**
   * admin: /api/log/ and /api/log/stat as root; self: /api/log/self and /api/log/self/stat as the
   * heaviest user. A dashboard case: /api/data/ (admin) or /api/data/self, the usage per model and hour.
   */
  caller: 'admin' | 'self';
  query: Record<string, string>;
  /** Whether a seeded row (all consume rows) is one the request selects. */
  selects(row: LogInsert): boolean;
}

export interface Expected {
  count: number;
  quota: number;
  newestId: number;
}

const DAY = 86_400;
export const PAGE_SIZE = 10;

export function logCases(plan: SeedPlan): LogCase[] {
  const heavyUserId = plan.userIds[0]!;
  const heavyUser = userName(0);
  const topToken = tokenName(0);
  const topModel = modelName(0);
  const rareModel = modelName(40);
  const topChannel = 1;
  const lastDay = plan.lastAt - DAY;
  const lastWeek = plan.lastAt - 7 * DAY;
  const monthAgo = { start: plan.lastAt - 31 * DAY, end: plan.lastAt - 30 * DAY };
  const inRange = (row: LogInsert, start: number, end = Number.MAX_SAFE_INTEGER) => row.created_at >= start && row.created_at <= end;
  const own = (row: LogInsert) => row.user_id === heavyUserId;
  const range = (start: number, end?: number) => ({ start_timestamp: String(start), ...(end === undefined ? {} : { end_timestamp: String(end) }) });

  // Filters both kinds share: [label, query, selects].
  const filters: [string, Record<string, string>, (row: LogInsert) => boolean][] = [
    ['none', {}, () => true],
    ['username (heaviest user)', { username: heavyUser }, (row) => row.username === heavyUser],
    ['token_name (most used)', { token_name: topToken }, (row) => row.token_name === topToken],
    ['model_name (most used)', { model_name: topModel }, (row) => row.model_name === topModel],
    ['model_name (rare)', { model_name: rareModel }, (row) => row.model_name === rareModel],
    ["model_name 'gpt-4%'", { model_name: 'gpt-4%' }, (row) => row.model_name.startsWith('gpt-4')],
    ['channel (busiest)', { channel: String(topChannel) }, (row) => row.channel_id === topChannel],
    ['group default', { group: 'default' }, (row) => row.group === 'default'],
    ['last 24 h', range(lastDay), (row) => inRange(row, lastDay)],
    ['last 7 days', range(lastWeek), (row) => inRange(row, lastWeek)],
    ['one day, 30 days ago', range(monthAgo.start, monthAgo.end), (row) => inRange(row, monthAgo.start, monthAgo.end)],
    [
      'user + model + 7 days',
      { username: heavyUser, model_name: topModel, ...range(lastWeek) },
      (row) => row.username === heavyUser && row.model_name === topModel && inRange(row, lastWeek),
    ],
  ];
  const selfFilters: [string, Record<string, string>, (row: LogInsert) => boolean][] = [
    ['self', {}, own],
    ['self, model_name', { model_name: topModel }, (row) => own(row) && row.model_name === topModel],
    ['self, last 24 h', range(lastDay), (row) => own(row) && inRange(row, lastDay)],
  ];

  const cases: LogCase[] = [];
  for (const [label, query, selects] of filters) {
    cases.push({ label, kind: 'page', caller: 'admin', query, selects });
    // The console sends the type tab with every page; stat ignores it.
    if (label === 'none') cases.push({ label: 'type=2', kind: 'page', caller: 'admin', query: { type: '2' }, selects });
  }
  for (const [label, query, selects] of selfFilters) cases.push({ label, kind: 'page', caller: 'self', query, selects });
  for (const [label, query, selects] of filters) cases.push({ label, kind: 'stat', caller: 'admin', query, selects });
  for (const [label, query, selects] of selfFilters) cases.push({ label, kind: 'stat', caller: 'self', query, selects });

  // The dashboard (quota_data, per user, model and hour): its ranges start on an hour, as its rows do.
  const hourOf = (at: number) => at - (at % 3_600);
  const since = (days: number) => hourOf(plan.lastAt - days * DAY);
  const chart = (days: number) => ({ start_timestamp: String(since(days)), end_timestamp: String(plan.lastAt) });
  const charted = (row: LogInsert, days: number) => hourOf(row.created_at) >= since(days);
  cases.push(
    { label: '7 days', kind: 'dashboard', caller: 'admin', query: chart(7), selects: (row) => charted(row, 7) },
    { label: '30 days', kind: 'dashboard', caller: 'admin', query: chart(30), selects: (row) => charted(row, 30) },
    {
      label: 'username (heaviest user), 7 days',
      kind: 'dashboard',
      caller: 'admin',
      query: { ...chart(7), username: heavyUser },
      selects: (row) => row.username === heavyUser && charted(row, 7),
    },
    { label: 'self, 7 days', kind: 'dashboard', caller: 'self', query: chart(7), selects: (row) => own(row) && charted(row, 7) },
  );
  return cases;
}

/** Counts, sums and the newest id per case, as the seed writes the rows. */
export class Expectations {
  readonly byCase: Expected[];

  constructor(private readonly cases: LogCase[]) {
    this.byCase = cases.map(() => ({ count: 0, quota: 0, newestId: 0 }));
  }

  visit(row: LogInsert, id: number): void {
    for (let index = 0; index < this.cases.length; index += 1) {
      if (!this.cases[index]!.selects(row)) continue;
      const expected = this.byCase[index]!;
      expected.count += 1;
      expected.quota += row.quota;
      if (id > expected.newestId) expected.newestId = id;
    }
  }
}

export function pathOf(logCase: LogCase): string {
  if (logCase.kind === 'dashboard') return `${logCase.caller === 'admin' ? '/api/data/' : '/api/data/self'}?${new URLSearchParams(logCase.query).toString()}`;
  const base = logCase.caller === 'admin' ? '/api/log/' : '/api/log/self';
  const stat = logCase.kind === 'stat' ? (logCase.caller === 'admin' ? 'stat' : '/stat') : '';
  const paging: Record<string, string> = logCase.kind === 'page' ? { p: '1', page_size: String(PAGE_SIZE) } : {};
  return `${base}${stat}?${new URLSearchParams({ ...paging, ...logCase.query }).toString()}`;
}

/**
 * Which of modelgate's columns an imported row fills, and how a one-api/new-api value becomes
 * ours. Our tables keep new-api's names, so a column is taken from the source column of the same
 * name; what differs is types (GORM booleans, `gorm.DeletedAt` datetimes, NULL pointer fields) and
 * columns one side lacks (they take our default; theirs are reported as not imported).
 */

/** How a source value is read into one of our columns. */
export type ColumnKind =
  | { kind: 'int'; fallback: number }
  | { kind: 'float'; fallback: number }
  | { kind: 'text'; fallback: string }
  /** Unique and nullable in our schema: '' becomes NULL so two empty values never collide. */
  | { kind: 'nullable-text' }
  /** new-api's gorm.DeletedAt (a datetime) to our unix seconds; NULL stays NULL. */
  | { kind: 'deleted-at' };

const int = (fallback = 0): ColumnKind => ({ kind: 'int', fallback });
const text = (fallback = ''): ColumnKind => ({ kind: 'text', fallback });
const float: ColumnKind = { kind: 'float', fallback: 0 };
const nullableText: ColumnKind = { kind: 'nullable-text' };
const deletedAt: ColumnKind = { kind: 'deleted-at' };

export type ImportTable = 'users' | 'tokens' | 'channels' | 'abilities' | 'options' | 'redemptions' | 'logs';

/** The tables in the order they are copied (owners before what they own). */
export const IMPORT_TABLES: readonly ImportTable[] = ['users', 'tokens', 'channels', 'abilities', 'options', 'redemptions', 'logs'];

/**
 * Our columns per table (apps/server/src/db/schema.ts), with their defaults from the migrations.
 * Columns the importer computes itself (users.username_key) are not listed; the test checks this
 * list against the migrated schema so the two cannot drift apart.
 */
export const IMPORT_COLUMNS: Record<ImportTable, Record<string, ColumnKind>> = {
  users: {
    id: int(),
    username: text(),
    password: text(),
    display_name: text(),
    role: int(1),
    status: int(1),
    email: text(),
    github_id: text(),
    oidc_id: text(),
    wechat_id: text(),
    telegram_id: text(),
    linux_do_id: text(),
    access_token: nullableText,
    quota: int(),
    used_quota: int(),
    request_count: int(),
    group: text('default'),
    aff_code: nullableText,
    aff_count: int(),
    aff_quota: int(),
    aff_history: int(),
    inviter_id: int(),
    setting: text(),
    remark: text(),
    created_at: int(),
    deleted_at: deletedAt,
    quota_reminded_at: int(),
    // Our rate limits (migration 010): new-api has none, so imported users start without limits.
    rpm_limit: int(),
    tpm_limit: int(),
    rpd_limit: int(),
    concurrency_limit: int(),
  },
  tokens: {
    id: int(),
    user_id: int(),
    key: text(),
    status: int(1),
    name: text(),
    created_time: int(),
    accessed_time: int(),
    expired_time: int(-1),
    remain_quota: int(),
    unlimited_quota: int(),
    model_limits_enabled: int(),
    model_limits: text(),
    allow_ips: text(),
    used_quota: int(),
    group: text(),
    deleted_at: deletedAt,
    // Our rate limits (migration 010), none on imported tokens.
    rpm_limit: int(),
    tpm_limit: int(),
    rpd_limit: int(),
    concurrency_limit: int(),
  },
  channels: {
    id: int(),
    type: int(),
    key: text(),
    openai_organization: text(),
    test_model: text(),
    status: int(1),
    name: text(),
    weight: int(),
    created_time: int(),
    test_time: int(),
    response_time: int(),
    base_url: text(),
    other: text(),
    balance: float,
    balance_updated_time: int(),
    models: text(),
    group: text('default'),
    used_quota: int(),
    model_mapping: text(),
    status_code_mapping: text(),
    priority: int(),
    auto_ban: int(1),
    other_info: text(),
    tag: text(),
    setting: text(),
    param_override: text(),
    header_override: text(),
    remark: text(),
    expired_time: int(),
    channel_info: text(),
  },
  abilities: {
    group: text(),
    model: text(),
    channel_id: int(),
    enabled: int(1),
    priority: int(),
    weight: int(),
    tag: text(),
  },
  options: { key: text(), value: text() },
  redemptions: {
    id: int(),
    user_id: int(),
    key: text(),
    status: int(1),
    name: text(),
    quota: int(100),
    created_time: int(),
    redeemed_time: int(),
    used_user_id: int(),
    expired_time: int(),
    deleted_at: deletedAt,
  },
  logs: {
    id: int(),
    user_id: int(),
    created_at: int(),
    type: int(),
    content: text(),
    username: text(),
    token_name: text(),
    model_name: text(),
    quota: int(),
    prompt_tokens: int(),
    completion_tokens: int(),
    use_time: int(),
    is_stream: int(),
    channel_id: int(),
    channel_name: text(),
    token_id: int(),
    group: text(),
    ip: text(),
    other: text(),
  },
};

/**
 * Source columns named otherwise: GORM names new-api's `OpenAIOrganization` field
 * `open_ai_organization`, ours is `openai_organization` (the JSON name both APIs answer with).
 */
const SOURCE_ALIASES: Partial<Record<ImportTable, Record<string, string>>> = {
  channels: { openai_organization: 'open_ai_organization' },
};

/**
 * one-api's forms of what new-api later gave columns of their own, used only when the source lacks
 * ours (songquanpeng/one-api model/token.go `models`, model/log.go `elapsed_time` in ms).
 */
const ONE_API_FALLBACKS: Partial<Record<ImportTable, Record<string, (source: Record<string, unknown>) => string | number | undefined>>> = {
  tokens: {
    model_limits: (source) => (typeof source.models === 'string' ? source.models.trim() : undefined),
    model_limits_enabled: (source) => (typeof source.models === 'string' ? (source.models.trim() === '' ? 0 : 1) : undefined),
  },
  logs: {
    use_time: (source) => {
      const elapsed = Number(source.elapsed_time);
      return source.elapsed_time === null || source.elapsed_time === undefined || !Number.isFinite(elapsed) ? undefined : Math.round(elapsed / 1000);
    },
  },
};

/** The source columns those fallbacks read (not reported as left out). */
const FALLBACK_SOURCES: Partial<Record<ImportTable, string[]>> = { tokens: ['models'], logs: ['elapsed_time'] };

const PADDED_COLUMNS: Partial<Record<ImportTable, string[]>> = {
  users: ['access_token', 'aff_code'],
  tokens: ['key'],
  redemptions: ['key'],
};

export type TargetRow = Record<string, string | number | null>;

export interface Mapped<T> {
  value: T;
  warnings: string[];
}

const asNumber = (raw: unknown): number | undefined => {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string') {
    const trimmed = raw.trim();
    if (trimmed === 't' || trimmed === 'true') return 1;
    if (trimmed === 'f' || trimmed === 'false') return 0;
    const number = Number(trimmed);
    return trimmed !== '' && Number.isFinite(number) ? number : undefined;
  }
  return undefined;
};

const asText = (raw: unknown): string => {
  if (typeof raw === 'string') return raw;
  if (raw instanceof Date) return raw.toISOString();
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  if (typeof raw === 'object') return JSON.stringify(raw);
  return String(raw);
};

/** Unix seconds of a GORM datetime: a Date (pg, mysql2), SQLite's text form, or a number. */
export function unixSecondsOf(raw: unknown): number | undefined {
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? undefined : Math.floor(raw.getTime() / 1000);
  if (typeof raw === 'number' || typeof raw === 'bigint') {
    const number = Number(raw);
    // Milliseconds if it reads as a date after 5138 in seconds.
    return number > 1e11 ? Math.floor(number / 1000) : Math.floor(number);
  }
  if (typeof raw === 'string' && raw.trim() !== '') {
    // GORM's SQLite form: "2024-05-01 10:00:00.123456789+08:00"; without a zone it is UTC.
    let iso = raw.trim().replace(' ', 'T');
    if (!/(Z|[+-]\d\d:?\d\d)$/.test(iso)) iso += 'Z';
    const parsed = Date.parse(iso);
    return Number.isNaN(parsed) ? undefined : Math.floor(parsed / 1000);
  }
  return undefined;
}

function convert(column: string, spec: ColumnKind, raw: unknown, warnings: string[], nowSeconds: number): string | number | null {
  switch (spec.kind) {
    case 'int':
    case 'float': {
      if (raw === null || raw === undefined) return spec.fallback;
      const number = asNumber(raw);
      if (number === undefined) {
        warnings.push(`${column}: not a number, set to ${spec.fallback}`);
        return spec.fallback;
      }
      return spec.kind === 'int' ? Math.trunc(number) : number;
    }
    case 'text':
      return raw === null || raw === undefined ? spec.fallback : asText(raw);
    case 'nullable-text': {
      if (raw === null || raw === undefined) return null;
      const value = asText(raw);
      return value === '' ? null : value;
    }
    case 'deleted-at': {
      if (raw === null || raw === undefined || raw === '') return null;
      const seconds = unixSecondsOf(raw);
      if (seconds === undefined) {
        // The row was deleted at some point; keep it deleted.
        warnings.push(`${column}: unreadable time, taken as the time of the import`);
        return nowSeconds;
      }
      return seconds;
    }
    default: {
      const unreachable: never = spec;
      throw new Error(`unknown column kind ${JSON.stringify(unreachable)}`);
    }
  }
}

const BCRYPT_HASH = /^\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53}$/;

/**
 * One source row as our row. Table-specific rules: a token key stored with `sk-` loses it (the
 * relay strips `sk-` from the caller's key before the lookup, as new-api does); a password that
 * is not a bcrypt hash (what new-api and one-api store, `$2a$10$…`) is carried but noted, as that
 * user cannot sign in with it.
 */
export function mapSourceRow(table: ImportTable, source: Record<string, unknown>, nowSeconds: number): Mapped<TargetRow> {
  const warnings: string[] = [];
  const row: TargetRow = {};
  for (const [column, spec] of Object.entries(IMPORT_COLUMNS[table])) {
    const alias = SOURCE_ALIASES[table]?.[column];
    const raw = source[column] ?? (alias === undefined ? undefined : source[alias]);
    row[column] = convert(column, spec, raw, warnings, nowSeconds);
    const fallback = ONE_API_FALLBACKS[table]?.[column];
    if (fallback && !(column in source)) row[column] = fallback(source) ?? row[column] ?? null;
  }
  // char(48)/char(32) columns come back space-padded from PostgreSQL.
  for (const column of PADDED_COLUMNS[table] ?? []) {
    const value = row[column];
    if (typeof value === 'string') row[column] = value.trimEnd();
  }
  if (table === 'tokens' && typeof row.key === 'string' && row.key.startsWith('sk-')) {
    row.key = row.key.slice(3);
  }
  if (table === 'users' && typeof row.password === 'string' && row.password !== '' && !BCRYPT_HASH.test(row.password)) {
    warnings.push('password: not a bcrypt hash, this user must reset it');
  }
  return { value: row, warnings };
}

/** Source columns that have no place in our table (reported once per table, never an error). */
export function unmappedColumns(table: ImportTable, sourceColumns: readonly string[]): string[] {
  const ours = IMPORT_COLUMNS[table];
  const aliases = new Set([...Object.values(SOURCE_ALIASES[table] ?? {}), ...(FALLBACK_SOURCES[table] ?? [])]);
  return sourceColumns.filter((column) => !Object.hasOwn(ours, column) && !aliases.has(column));
}

/** Whether our stored row already holds what the import would write (numbers compared by value). */
export function sameRow(table: ImportTable, mapped: TargetRow, existing: Record<string, unknown>): boolean {
  for (const column of Object.keys(IMPORT_COLUMNS[table])) {
    const a = mapped[column];
    const b = existing[column];
    if (a === null || b === null || a === undefined || b === undefined) {
      if ((a ?? null) !== (b ?? null)) return false;
      continue;
    }
    if (typeof a === 'number' || typeof b === 'number') {
      if (Number(a) !== Number(b)) return false;
    } else if (String(a) !== String(b)) return false;
  }
  return true;
}

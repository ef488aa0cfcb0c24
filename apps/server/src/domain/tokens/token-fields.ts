import { RATE_LIMIT_MAX, type WireToken } from '@modelgate/contract';
import { isIP } from 'node:net';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { TokensTable } from '../../db/schema.js';
import { badRequest } from '../../errors/app-error.js';
import { hasForbiddenCharacters } from '../../lib/username.js';

export type TokenRow = Selectable<TokensTable>;

export const TOKEN_NAME_MAX = 50;
export const TOKEN_KEY_LENGTH = 48;
export const TOKEN_BATCH_MAX = 100;
/** Unix seconds beyond this are almost surely milliseconds sent by mistake (year 5138). */
const EXPIRY_SECONDS_MAX = 100_000_000_000;

const integer = (label: string) =>
  z
    .union(
      [
        z.number(),
        z
          .string()
          .trim()
          .regex(/^-?\d+$/, `${label}必须是整数`),
      ],
      { error: `${label}必须是整数` },
    )
    .transform(Number)
    .pipe(z.number().int(`${label}必须是整数`).safe(`${label}超出范围`));

/** An optional integer; null (sent by forms for an untouched field) counts as absent. */
const optionalInteger = (label: string, min?: { value: number; message: string }) =>
  integer(label)
    .pipe(min ? z.number().min(min.value, min.message) : z.number())
    .nullable()
    .optional()
    .transform((value) => value ?? undefined);

const bool = (label: string) =>
  z.union([z.boolean(), z.literal(0), z.literal(1)], { error: `${label}必须是布尔值` }).transform((value) => value === true || value === 1);

const nullableText = z
  .union([z.string(), z.null()], { error: '必须是字符串' })
  .optional()
  .transform((value) => (value === null ? undefined : value));

/** A rate-limit figure (relay/rate-limits/): a whole number from 0 (no limit); null or absent leaves it as it is. */
const rateLimitFigure = (label: string) =>
  integer(label)
    .pipe(z.number().min(0, `${label}不能为负数`).max(RATE_LIMIT_MAX, `${label}不能大于 ${RATE_LIMIT_MAX}`))
    .nullable()
    .optional()
    .transform((value) => value ?? undefined);

/** The rate-limit fields of a token or a user (their wire names are the columns'), each 0 for no limit. */
export const rateLimitInputFields = {
  rpm_limit: rateLimitFigure('每分钟请求数限制'),
  tpm_limit: rateLimitFigure('每分钟 Token 数限制'),
  rpd_limit: rateLimitFigure('每日请求数限制'),
  concurrency_limit: rateLimitFigure('并发请求数限制'),
};

/** The fields of a token a user may write, all optional so one schema serves create and update. */
export const tokenInputSchema = z.object({
  id: optionalInteger('令牌 ID'),
  name: nullableText,
  expired_time: optionalInteger('过期时间'),
  remain_quota: optionalInteger('额度', { value: 0, message: '额度不能为负数' }),
  unlimited_quota: bool('无限额度')
    .nullable()
    .optional()
    .transform((value) => value ?? undefined),
  model_limits_enabled: bool('模型限制')
    .nullable()
    .optional()
    .transform((value) => value ?? undefined),
  model_limits: z
    .union([z.string(), z.array(z.string()), z.null()], { error: '模型限制必须是逗号分隔的字符串' })
    .optional()
    .transform((value) => (value === null || value === undefined ? undefined : normaliseModelList(value))),
  allow_ips: nullableText,
  group: nullableText,
  status: optionalInteger('状态'),
  /** How many tokens to create in one call (create only). */
  count: optionalInteger('令牌数量'),
  ...rateLimitInputFields,
});
export type TokenInput = z.output<typeof tokenInputSchema>;

function normaliseModelList(value: string | string[]): string {
  const parts = typeof value === 'string' ? value.split(',') : value;
  return [...new Set(parts.map((part) => part.trim()).filter((part) => part !== ''))].join(',');
}

export function checkName(name: string | undefined, required: boolean): string | undefined {
  if (name === undefined) {
    if (required) throw badRequest('令牌名称不能为空', 'token:missing_name');
    return undefined;
  }
  const trimmed = name.trim();
  if (trimmed === '') throw badRequest('令牌名称不能为空', 'token:missing_name');
  if ([...trimmed].length > TOKEN_NAME_MAX) throw badRequest('令牌名称过长', 'token:name_too_long');
  if (hasForbiddenCharacters(trimmed)) {
    throw badRequest('令牌名称包含不允许的字符 (the token name holds control, zero-width or text-direction characters)', 'token:name_characters');
  }
  return trimmed;
}

/**
 * -1 means never; anything else is Unix seconds that must lie in the future. `unchanged` lets
 * an edit keep a past expiry it did not touch (renaming an expired token stays possible).
 */
export function checkExpiry(expiredTime: number, now: number, unchanged?: number): number {
  if (expiredTime === -1 || expiredTime === unchanged) return expiredTime;
  if (expiredTime >= EXPIRY_SECONDS_MAX) throw badRequest('过期时间应为以秒为单位的 Unix 时间戳', 'token:invalid_expiry');
  if (expiredTime <= now) throw badRequest('过期时间必须是 -1（永不过期）或未来的时间', 'token:invalid_expiry');
  return expiredTime;
}

function isCidr(entry: string): boolean {
  const slash = entry.indexOf('/');
  if (slash === -1) return false;
  const address = entry.slice(0, slash);
  const prefix = entry.slice(slash + 1);
  const version = isIP(address);
  if (version === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * One IP address or CIDR range per line (commas also separate, as the relay reads them); blank
 * entries are dropped, anything else must parse: a typo must not silently widen or empty the list.
 */
export function checkAllowIps(raw: string): string {
  const entries: string[] = [];
  for (const [index, line] of raw.split(/\r?\n/).entries()) {
    for (const part of line.split(',')) {
      const entry = part.trim();
      if (entry === '') continue;
      if (isIP(entry) === 0 && !isCidr(entry)) {
        throw badRequest(`IP 白名单第 ${index + 1} 行不是合法的 IP 地址或 CIDR 网段：${entry}`, 'token:invalid_allow_ips');
      }
      entries.push(entry);
    }
  }
  return entries.join('\n');
}

/** Expired or used up: such a token cannot be switched on until its expiry or quota is fixed. */
export const isExpired = (token: Pick<TokenRow, 'expired_time'>, now: number): boolean =>
  Number(token.expired_time) !== -1 && Number(token.expired_time) <= now;
export const isExhausted = (token: Pick<TokenRow, 'unlimited_quota' | 'remain_quota'>): boolean =>
  Number(token.unlimited_quota) === 0 && Number(token.remain_quota) <= 0;

/**
 * new-api's mask: the first and last four characters around ten stars, so a user can tell keys
 * apart without the answer being usable. Short keys (only ever hand-made) keep less.
 */
export function maskTokenKey(key: string): string {
  if (key === '') return '';
  if (key.length <= 4) return '*'.repeat(key.length);
  if (key.length <= 8) return `${key.slice(0, 2)}****${key.slice(-2)}`;
  return `${key.slice(0, 4)}${'*'.repeat(10)}${key.slice(-4)}`;
}

/**
 * A token as the console sees it. The key is always masked (without `sk-`, which the console
 * adds); the full key leaves the server only through the key routes (token-key-access.ts).
 */
export function toWireToken(row: TokenRow): WireToken {
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    key: maskTokenKey(row.key),
    status: Number(row.status),
    name: row.name,
    created_time: Number(row.created_time),
    accessed_time: Number(row.accessed_time),
    expired_time: Number(row.expired_time),
    remain_quota: Number(row.remain_quota),
    unlimited_quota: Number(row.unlimited_quota) === 1,
    model_limits_enabled: Number(row.model_limits_enabled) === 1,
    model_limits: row.model_limits,
    allow_ips: row.allow_ips,
    used_quota: Number(row.used_quota),
    group: row.group,
    rpm_limit: Number(row.rpm_limit),
    tpm_limit: Number(row.tpm_limit),
    rpd_limit: Number(row.rpd_limit),
    concurrency_limit: Number(row.concurrency_limit),
  };
}

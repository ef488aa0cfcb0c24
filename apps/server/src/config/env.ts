import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * Process configuration from the environment, under the names one-api and new-api users know.
 * Parsed once at start; an invalid value stops the process with one line naming the variable.
 */
const intFrom = (fallback: number, min = 0) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return fallback;
      if (!/^-?\d+$/.test(raw)) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number, got "${raw}"` });
        return z.NEVER;
      }
      const value = Number(raw);
      if (value < min) {
        ctx.addIssue({ code: 'custom', message: `must be at least ${min}, got ${value}` });
        return z.NEVER;
      }
      return value;
    });

/** An http(s) address without trailing slashes. */
const urlFrom = (fallback: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw) => (raw || fallback).replace(/\/+$/, ''))
    .refine((url) => /^https?:\/\/[^\s]+$/.test(url), 'must be an http:// or https:// address');

const envSchema = z.object({
  PORT: intFrom(3000, 0).refine((port) => port <= 65535, 'must be a port number (0-65535)'),
  SQLITE_PATH: z.string().trim().optional().transform((raw) => raw || './data/modelgate.db'),
  SQL_DSN: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw ?? '')
    .refine(
      (dsn) => dsn === '' || /^(postgres|postgresql|mysql):\/\//.test(dsn),
      'must start with postgres:// or mysql:// (leave it empty for SQLite)',
    ),
  REDIS_CONN_STRING: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw ?? '')
    .refine((url) => url === '' || /^rediss?:\/\//.test(url), 'must start with redis:// or rediss://'),
  SESSION_SECRET: z.string().optional().transform((raw) => raw ?? ''),
  SYNC_FREQUENCY: intFrom(60, 1),
  NODE_TYPE: z
    .string()
    .trim()
    .optional()
    .transform((raw) => (raw || 'master').toLowerCase())
    .refine((kind) => kind === 'master' || kind === 'slave', 'must be "master" or "slave"'),
  GLOBAL_API_RATE_LIMIT: intFrom(180, 0),
  GLOBAL_WEB_RATE_LIMIT: intFrom(60, 0),
  CRITICAL_RATE_LIMIT: intFrom(20, 0),
  STREAMING_TIMEOUT: intFrom(60, 1),
  CHANNEL_TEST_FREQUENCY: intFrom(0, 0),
  BATCH_UPDATE_INTERVAL: intFrom(5, 1),
  RELAY_TIMEOUT: intFrom(0, 0),
  LOG_LEVEL: z
    .string()
    .optional()
    .transform((raw) => raw || 'info')
    .refine((level) => ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level), 'must be a pino level'),
  WEB_DIST: z.string().optional().transform((raw) => raw ?? ''),
  // Third-party sign-in and bot-check endpoints; tests point them at local fakes.
  GITHUB_OAUTH_BASE_URL: urlFrom('https://github.com'),
  GITHUB_API_BASE_URL: urlFrom('https://api.github.com'),
  LINUXDO_OAUTH_BASE_URL: urlFrom('https://connect.linux.do'),
  TURNSTILE_VERIFY_URL: urlFrom('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
});

export interface AppConfig {
  port: number;
  sqlitePath: string;
  sqlDsn: string;
  redisUrl: string;
  sessionSecret: string;
  /** true when SESSION_SECRET was unset and a random one was made for this boot. */
  sessionSecretGenerated: boolean;
  syncFrequencySeconds: number;
  isMaster: boolean;
  rateLimits: { api: number; web: number; critical: number };
  streamingTimeoutSeconds: number;
  /** Minutes between scheduled channel tests; 0 disables them. */
  channelTestFrequencyMinutes: number;
  /** Seconds between flushes of batched counters. */
  batchUpdateIntervalSeconds: number;
  /** Seconds an upstream may take to answer headers; 0 = no limit beyond undici's defaults. */
  relayTimeoutSeconds: number;
  logLevel: string;
  /** Built console directory; empty means apps/web/dist. */
  webDist: string;
  /** Where sign-in providers and the bot check are reached (overridable for tests). */
  authProviders: {
    githubOAuthBaseUrl: string;
    githubApiBaseUrl: string;
    linuxdoBaseUrl: string;
    turnstileVerifyUrl: string;
  };
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  const value = parsed.data;
  const sessionSecretGenerated = value.SESSION_SECRET === '';
  return {
    port: value.PORT,
    sqlitePath: value.SQLITE_PATH,
    sqlDsn: value.SQL_DSN,
    redisUrl: value.REDIS_CONN_STRING,
    sessionSecret: sessionSecretGenerated ? randomBytes(32).toString('hex') : value.SESSION_SECRET,
    sessionSecretGenerated,
    syncFrequencySeconds: value.SYNC_FREQUENCY,
    isMaster: value.NODE_TYPE === 'master',
    rateLimits: { api: value.GLOBAL_API_RATE_LIMIT, web: value.GLOBAL_WEB_RATE_LIMIT, critical: value.CRITICAL_RATE_LIMIT },
    streamingTimeoutSeconds: value.STREAMING_TIMEOUT,
    channelTestFrequencyMinutes: value.CHANNEL_TEST_FREQUENCY,
    batchUpdateIntervalSeconds: value.BATCH_UPDATE_INTERVAL,
    relayTimeoutSeconds: value.RELAY_TIMEOUT,
    logLevel: value.LOG_LEVEL,
    webDist: value.WEB_DIST,
    authProviders: {
      githubOAuthBaseUrl: value.GITHUB_OAUTH_BASE_URL,
      githubApiBaseUrl: value.GITHUB_API_BASE_URL,
      linuxdoBaseUrl: value.LINUXDO_OAUTH_BASE_URL,
      turnstileVerifyUrl: value.TURNSTILE_VERIFY_URL,
    },
  };
}

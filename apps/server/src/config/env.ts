import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { z } from 'zod';
import { parseSecretKey } from '../lib/secret-box.js';
import { type TracingConfig, tracingConfigFrom } from '../lib/telemetry/tracing-config.js';

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

/** Names proxy-addr (Fastify's trustProxy) knows for whole address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An IP address, a CIDR range (`10.0.0.0/8`) or one of PROXY_RANGE_NAMES. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** A comma list of proxy addresses; empty means none. */
const proxyList = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const entries = (raw ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    const invalid = entries.find((entry) => !isProxyAddress(entry));
    if (invalid !== undefined) {
      ctx.addIssue({ code: 'custom', message: `must list IP addresses or CIDR ranges separated by commas, got "${invalid}"` });
      return z.NEVER;
    }
    return entries;
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
  SQLITE_PATH: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw || './data/modelgate.db'),
  SQL_DSN: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw ?? '')
    .refine((dsn) => dsn === '' || /^(postgres|postgresql|mysql):\/\//.test(dsn), 'must start with postgres:// or mysql:// (leave it empty for SQLite)'),
  REDIS_CONN_STRING: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw ?? '')
    .refine((url) => url === '' || /^rediss?:\/\//.test(url), 'must start with redis:// or rediss://'),
  SESSION_SECRET: z
    .string()
    .optional()
    .transform((raw) => raw ?? ''),
  MODELGATE_SECRET_KEY: z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (!raw) return undefined;
      const key = parseSecretKey(raw);
      if (!key) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be 32 bytes written as base64 (44 characters) or hex (64 characters), e.g. from `openssl rand -base64 32`',
        });
        return z.NEVER;
      }
      return key;
    }),
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
  TRUSTED_PROXIES: proxyList,
  STREAMING_TIMEOUT: intFrom(60, 1),
  CHANNEL_TEST_FREQUENCY: intFrom(0, 0),
  CHANNEL_TEST_TIMEOUT: intFrom(20, 1),
  BATCH_UPDATE_INTERVAL: intFrom(5, 1),
  NODE_NAME: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw ?? '')
    .refine((name) => name.length <= 128 && !name.includes('/'), 'must be at most 128 characters, without "/"'),
  // 0: the default, max(60, 12 × BATCH_UPDATE_INTERVAL) (checked against BATCH_UPDATE_INTERVAL in loadConfig).
  NODE_STALE_SECONDS: intFrom(0, 0),
  QUOTA_WAIT_SECONDS: intFrom(10, 0),
  TASK_POLL_INTERVAL: intFrom(15, 1),
  RELAY_TIMEOUT: intFrom(120, 0),
  RELAY_MAX_BUFFERED_BYTES: intFrom(32 * 1024 * 1024, 1024),
  REQUEST_HEADERS_TIMEOUT: intFrom(10, 1),
  REQUEST_TIMEOUT: intFrom(300, 0),
  REQUEST_BODY_MIN_RATE: intFrom(1024, 0),
  REQUEST_BODY_RATE_WINDOW: intFrom(10, 1),
  METRICS_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw ?? ''),
  LOG_LEVEL: z
    .string()
    .optional()
    .transform((raw) => raw || 'info')
    .refine((level) => ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level), 'must be a pino level'),
  WEB_DIST: z
    .string()
    .optional()
    .transform((raw) => raw ?? ''),
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
  /**
   * MODELGATE_SECRET_KEY: the AES-256 key sealing the secrets stored in the database (db/secret-key.ts);
   * unset: SQLite keeps one in a file beside the database, PostgreSQL and MySQL refuse to start.
   */
  secretKey: Buffer | undefined;
  syncFrequencySeconds: number;
  isMaster: boolean;
  rateLimits: { api: number; web: number; critical: number };
  /**
   * Proxies whose X-Forwarded-For / -Proto / -Host are believed (IPs, CIDRs); empty: none, the
   * client is the TCP peer, so nobody picks their own IP for the per-IP limits.
   */
  trustedProxies: string[];
  streamingTimeoutSeconds: number;
  /** Minutes between scheduled channel tests; 0 disables them. */
  channelTestFrequencyMinutes: number;
  /** Seconds a channel test, balance query or model-list fetch waits for the upstream. */
  channelTestTimeoutSeconds: number;
  /** Seconds between flushes of batched counters. */
  batchUpdateIntervalSeconds: number;
  /**
   * This process's name among the relay nodes ('' = `<hostname>:<PORT>`). A process that starts
   * under the name of one that died gives back the balance the dead one held for calls.
   */
  nodeName: string;
  /**
   * Seconds a relay node may go without a heartbeat (one comes with every flush) before another
   * node takes it for dead and gives back the balance it held for calls (NODE_STALE_SECONDS).
   */
  nodeStaleSeconds: number;
  /** Seconds a call its payer's balance cannot cover yet waits for the payer's calls in flight to settle. */
  quotaWaitSeconds: number;
  /** Seconds between the master's polls of unfinished Midjourney and Suno tasks (new-api: 15). */
  taskPollIntervalSeconds: number;
  /**
   * Seconds an upstream may stay silent while nothing has reached the client (before its headers,
   * between the bytes of a whole answer, before a stream's first byte); 0 = no limit.
   */
  relayTimeoutSeconds: number;
  /** Largest whole (non-stream) answer held in memory; a larger one is passed through unparsed. */
  relayMaxBufferedBytes: number;
  /** How slowly a client may send a request before it is refused (slow-loris connections). */
  requestLimits: {
    /** Seconds from a request's first byte to the end of its headers. */
    headersTimeoutSeconds: number;
    /** Seconds from a request's first byte to the end of its body; 0 = no limit. */
    requestTimeoutSeconds: number;
    /** Bytes per second a body must average over each window of its upload; 0 = no check. */
    bodyMinBytesPerSecond: number;
    bodyRateWindowSeconds: number;
  };
  /** Bearer token GET /metrics asks for; '' = /metrics is open. */
  metricsToken: string;
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
  /** OpenTelemetry traces (OTEL_* variables, lib/telemetry/); undefined while off (no OTLP endpoint, or disabled). */
  tracing: TracingConfig | undefined;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  const value = parsed.data;
  if (value.REQUEST_TIMEOUT > 0 && value.REQUEST_TIMEOUT < value.REQUEST_HEADERS_TIMEOUT) {
    throw new ConfigError(
      `invalid configuration: REQUEST_TIMEOUT must be 0 or at least REQUEST_HEADERS_TIMEOUT (${value.REQUEST_HEADERS_TIMEOUT}), got ${value.REQUEST_TIMEOUT}`,
    );
  }
  const tracing = tracingConfigFrom(env);
  if ('problem' in tracing) throw new ConfigError(`invalid configuration: ${tracing.problem}`);
  // A live node heartbeats at every flush: it must be able to miss a few before it is taken for dead.
  const nodeStaleSeconds = value.NODE_STALE_SECONDS === 0 ? Math.max(60, 12 * value.BATCH_UPDATE_INTERVAL) : value.NODE_STALE_SECONDS;
  if (nodeStaleSeconds < 3 * value.BATCH_UPDATE_INTERVAL) {
    throw new ConfigError(
      `invalid configuration: NODE_STALE_SECONDS must be 0 (the default) or at least 3 × BATCH_UPDATE_INTERVAL (${3 * value.BATCH_UPDATE_INTERVAL}), got ${nodeStaleSeconds}`,
    );
  }
  const sessionSecretGenerated = value.SESSION_SECRET === '';
  return {
    port: value.PORT,
    sqlitePath: value.SQLITE_PATH,
    sqlDsn: value.SQL_DSN,
    redisUrl: value.REDIS_CONN_STRING,
    sessionSecret: sessionSecretGenerated ? randomBytes(32).toString('hex') : value.SESSION_SECRET,
    sessionSecretGenerated,
    secretKey: value.MODELGATE_SECRET_KEY,
    syncFrequencySeconds: value.SYNC_FREQUENCY,
    isMaster: value.NODE_TYPE === 'master',
    rateLimits: { api: value.GLOBAL_API_RATE_LIMIT, web: value.GLOBAL_WEB_RATE_LIMIT, critical: value.CRITICAL_RATE_LIMIT },
    trustedProxies: value.TRUSTED_PROXIES,
    streamingTimeoutSeconds: value.STREAMING_TIMEOUT,
    channelTestFrequencyMinutes: value.CHANNEL_TEST_FREQUENCY,
    channelTestTimeoutSeconds: value.CHANNEL_TEST_TIMEOUT,
    batchUpdateIntervalSeconds: value.BATCH_UPDATE_INTERVAL,
    nodeName: value.NODE_NAME || `${hostname()}:${value.PORT}`,
    nodeStaleSeconds,
    quotaWaitSeconds: value.QUOTA_WAIT_SECONDS,
    taskPollIntervalSeconds: value.TASK_POLL_INTERVAL,
    relayTimeoutSeconds: value.RELAY_TIMEOUT,
    relayMaxBufferedBytes: value.RELAY_MAX_BUFFERED_BYTES,
    requestLimits: {
      headersTimeoutSeconds: value.REQUEST_HEADERS_TIMEOUT,
      requestTimeoutSeconds: value.REQUEST_TIMEOUT,
      bodyMinBytesPerSecond: value.REQUEST_BODY_MIN_RATE,
      bodyRateWindowSeconds: value.REQUEST_BODY_RATE_WINDOW,
    },
    metricsToken: value.METRICS_TOKEN,
    logLevel: value.LOG_LEVEL,
    webDist: value.WEB_DIST,
    authProviders: {
      githubOAuthBaseUrl: value.GITHUB_OAUTH_BASE_URL,
      githubApiBaseUrl: value.GITHUB_API_BASE_URL,
      linuxdoBaseUrl: value.LINUXDO_OAUTH_BASE_URL,
      turnstileVerifyUrl: value.TURNSTILE_VERIFY_URL,
    },
    tracing: tracing.config,
  };
}

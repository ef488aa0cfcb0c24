import { ChannelStatus, TokenStatus, UserStatus } from '@modelgate/contract';
import { insertReturningId, type Db } from '../db/index.js';
import { randomAlphanumeric } from '../domain/users/user-service.js';

/**
 * Rows written straight into a database, as the admin API would write them: a channel with its
 * abilities (its key sealed), a user, a token. Tests whose server runs in this process add the
 * change events on top (relay/testing/relay-fixtures.ts); tests that start server processes write
 * them before the processes start (backup, shutdown, crash, cluster tests).
 */

export interface ChannelSeed {
  key: string;
  baseUrl: string;
  models: string[];
  groups: string[];
  type?: number;
  name?: string;
  priority?: number;
  weight?: number;
  modelMapping?: Record<string, string>;
  statusCodeMapping?: Record<string, string | number>;
  other?: string;
  autoBan?: boolean;
  status?: number;
  testModel?: string;
  /** The channel's `setting` JSON text. */
  setting?: string;
  /** new-api's channel_info JSON text (a multi-key channel's key states and mode). */
  channelInfo?: string;
}

/** A channel and its abilities rows (one per group and model); returns its id. */
export async function insertChannel(db: Db, seed: ChannelSeed): Promise<number> {
  const status = seed.status ?? ChannelStatus.Enabled;
  const id = await insertReturningId(db, 'channels', {
    type: seed.type ?? 1,
    // Sealed as the admin API stores it, so the relay reads its keys through the cache's opening.
    key: db.secrets.seal(seed.key),
    status,
    name: seed.name ?? seed.key,
    weight: seed.weight ?? 0,
    created_time: Math.floor(Date.now() / 1000),
    base_url: seed.baseUrl,
    other: seed.other ?? '',
    models: seed.models.join(','),
    group: seed.groups.join(','),
    model_mapping: seed.modelMapping ? JSON.stringify(seed.modelMapping) : '',
    status_code_mapping: seed.statusCodeMapping ? JSON.stringify(seed.statusCodeMapping) : '',
    priority: seed.priority ?? 0,
    auto_ban: seed.autoBan === false ? 0 : 1,
    test_model: seed.testModel ?? '',
    setting: seed.setting ?? '',
    channel_info: seed.channelInfo ?? '',
  });
  const rows = seed.groups.flatMap((group) =>
    seed.models.map((model) => ({
      group,
      model,
      channel_id: id,
      enabled: status === ChannelStatus.Enabled ? 1 : 0,
      priority: seed.priority ?? 0,
      weight: seed.weight ?? 0,
      tag: '',
    })),
  );
  if (rows.length > 0) await db.kysely.insertInto('abilities').values(rows).execute();
  return id;
}

export interface UserSeed {
  username: string;
  /** A bcrypt hash for a user who signs in; anything else for one who only calls with tokens. */
  password?: string;
  role?: number;
  status?: number;
  quota?: number;
  group?: string;
}

/** A user row; returns its id. */
export function insertUser(db: Db, user: UserSeed): Promise<number> {
  return insertReturningId(db, 'users', {
    username: user.username,
    password: user.password ?? 'x',
    role: user.role ?? 1,
    status: user.status ?? UserStatus.Enabled,
    quota: user.quota ?? 100_000_000,
    group: user.group ?? 'default',
    created_at: Math.floor(Date.now() / 1000),
  });
}

export interface TokenSeed {
  /** A limited token's quota; without it (or with `unlimited`) the token is unlimited. */
  remainQuota?: number;
  unlimited?: boolean;
  modelLimits?: string[];
  allowIps?: string;
  group?: string;
  expiredTime?: number;
  status?: number;
  name?: string;
}

export interface SeededToken {
  id: number;
  key: string;
  /** The key as clients send it: sk-<key>. */
  apiKey: string;
}

/** A token of `userId` with a fresh key. */
export async function insertToken(db: Db, userId: number, options: TokenSeed = {}): Promise<SeededToken> {
  const key = randomAlphanumeric(48);
  const id = await insertReturningId(db, 'tokens', {
    user_id: userId,
    key,
    status: options.status ?? TokenStatus.Enabled,
    name: options.name ?? 'test token',
    created_time: Math.floor(Date.now() / 1000),
    expired_time: options.expiredTime ?? -1,
    remain_quota: options.remainQuota ?? 0,
    unlimited_quota: (options.unlimited ?? options.remainQuota === undefined) ? 1 : 0,
    model_limits_enabled: options.modelLimits ? 1 : 0,
    model_limits: (options.modelLimits ?? []).join(','),
    allow_ips: options.allowIps ?? '',
    group: options.group ?? '',
  });
  return { id, key, apiKey: `sk-${key}` };
}

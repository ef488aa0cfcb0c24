import type { ColumnType, Generated } from 'kysely';

/**
 * Table and column names follow new-api's schema so an importer can read its databases.
 * Booleans are stored as integers 0/1 on every dialect (better-sqlite3 cannot bind JS booleans).
 */
type Id = Generated<number>;
/** Integer columns that may come back as strings from some drivers are normalised in db/index.ts. */
type Int = number;

export interface UsersTable {
  id: Id;
  username: string;
  /**
   * usernameKey(username): the folded form two names are compared in, unique. null only on rows
   * written straight into the table (tests, imports) since migration 002.
   */
  username_key: ColumnType<string | null, string | null | undefined, string | null>;
  password: string;
  display_name: ColumnType<string, string | undefined, string>;
  role: ColumnType<Int, Int | undefined, Int>;
  status: ColumnType<Int, Int | undefined, Int>;
  email: ColumnType<string, string | undefined, string>;
  github_id: ColumnType<string, string | undefined, string>;
  oidc_id: ColumnType<string, string | undefined, string>;
  wechat_id: ColumnType<string, string | undefined, string>;
  telegram_id: ColumnType<string, string | undefined, string>;
  linux_do_id: ColumnType<string, string | undefined, string>;
  /** null until the user creates one; unique when set. */
  access_token: string | null;
  quota: ColumnType<Int, Int | undefined, Int>;
  used_quota: ColumnType<Int, Int | undefined, Int>;
  request_count: ColumnType<Int, Int | undefined, Int>;
  group: ColumnType<string, string | undefined, string>;
  aff_code: string | null;
  aff_count: ColumnType<Int, Int | undefined, Int>;
  aff_quota: ColumnType<Int, Int | undefined, Int>;
  /** new-api's column name for aff_history_quota. */
  aff_history: ColumnType<Int, Int | undefined, Int>;
  inviter_id: ColumnType<Int, Int | undefined, Int>;
  setting: ColumnType<string, string | undefined, string>;
  remark: ColumnType<string, string | undefined, string>;
  created_at: ColumnType<Int, Int | undefined, Int>;
  deleted_at: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** Unix seconds of the last quota reminder mail (0: never); see domain/notifications. */
  quota_reminded_at: ColumnType<Int, Int | undefined, Int>;
  /** Rate limits (relay/rate-limits/, migration 010): requests a minute, tokens a minute, requests a day, calls at once; 0 none. */
  rpm_limit: ColumnType<Int, Int | undefined, Int>;
  tpm_limit: ColumnType<Int, Int | undefined, Int>;
  rpd_limit: ColumnType<Int, Int | undefined, Int>;
  concurrency_limit: ColumnType<Int, Int | undefined, Int>;
}

export interface TokensTable {
  id: Id;
  user_id: Int;
  key: string;
  status: ColumnType<Int, Int | undefined, Int>;
  name: ColumnType<string, string | undefined, string>;
  created_time: Int;
  accessed_time: ColumnType<Int, Int | undefined, Int>;
  expired_time: ColumnType<Int, Int | undefined, Int>;
  remain_quota: ColumnType<Int, Int | undefined, Int>;
  unlimited_quota: ColumnType<Int, Int | undefined, Int>;
  model_limits_enabled: ColumnType<Int, Int | undefined, Int>;
  model_limits: ColumnType<string, string | undefined, string>;
  allow_ips: ColumnType<string, string | undefined, string>;
  used_quota: ColumnType<Int, Int | undefined, Int>;
  group: ColumnType<string, string | undefined, string>;
  deleted_at: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** Rate limits (relay/rate-limits/, migration 010): requests a minute, tokens a minute, requests a day, calls at once; 0 none. */
  rpm_limit: ColumnType<Int, Int | undefined, Int>;
  tpm_limit: ColumnType<Int, Int | undefined, Int>;
  rpd_limit: ColumnType<Int, Int | undefined, Int>;
  concurrency_limit: ColumnType<Int, Int | undefined, Int>;
}

export interface ChannelsTable {
  id: Id;
  type: ColumnType<Int, Int | undefined, Int>;
  key: string;
  openai_organization: ColumnType<string, string | undefined, string>;
  test_model: ColumnType<string, string | undefined, string>;
  status: ColumnType<Int, Int | undefined, Int>;
  name: ColumnType<string, string | undefined, string>;
  weight: ColumnType<Int, Int | undefined, Int>;
  created_time: ColumnType<Int, Int | undefined, Int>;
  test_time: ColumnType<Int, Int | undefined, Int>;
  response_time: ColumnType<Int, Int | undefined, Int>;
  base_url: ColumnType<string, string | undefined, string>;
  other: ColumnType<string, string | undefined, string>;
  balance: ColumnType<number, number | undefined, number>;
  balance_updated_time: ColumnType<Int, Int | undefined, Int>;
  models: ColumnType<string, string | undefined, string>;
  group: ColumnType<string, string | undefined, string>;
  used_quota: ColumnType<Int, Int | undefined, Int>;
  model_mapping: ColumnType<string, string | undefined, string>;
  status_code_mapping: ColumnType<string, string | undefined, string>;
  priority: ColumnType<Int, Int | undefined, Int>;
  auto_ban: ColumnType<Int, Int | undefined, Int>;
  other_info: ColumnType<string, string | undefined, string>;
  tag: ColumnType<string, string | undefined, string>;
  setting: ColumnType<string, string | undefined, string>;
  param_override: ColumnType<string, string | undefined, string>;
  header_override: ColumnType<string, string | undefined, string>;
  remark: ColumnType<string, string | undefined, string>;
  expired_time: ColumnType<Int, Int | undefined, Int>;
  /** new-api's channel_info: a multi-key channel's per-key state (domain/channels/multi-key.ts). */
  channel_info: ColumnType<string, string | undefined, string>;
}

export interface AbilitiesTable {
  group: string;
  model: string;
  channel_id: Int;
  enabled: ColumnType<Int, Int | undefined, Int>;
  priority: ColumnType<Int, Int | undefined, Int>;
  weight: ColumnType<Int, Int | undefined, Int>;
  tag: ColumnType<string, string | undefined, string>;
}

export interface OptionsTable {
  key: string;
  value: string;
}

export interface RedemptionsTable {
  id: Id;
  user_id: Int;
  key: string;
  status: ColumnType<Int, Int | undefined, Int>;
  name: ColumnType<string, string | undefined, string>;
  quota: ColumnType<Int, Int | undefined, Int>;
  created_time: Int;
  redeemed_time: ColumnType<Int, Int | undefined, Int>;
  used_user_id: ColumnType<Int, Int | undefined, Int>;
  expired_time: ColumnType<Int, Int | undefined, Int>;
  deleted_at: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

export interface LogsTable {
  id: Id;
  user_id: Int;
  created_at: Int;
  type: Int;
  content: ColumnType<string, string | undefined, string>;
  username: ColumnType<string, string | undefined, string>;
  token_name: ColumnType<string, string | undefined, string>;
  model_name: ColumnType<string, string | undefined, string>;
  quota: ColumnType<Int, Int | undefined, Int>;
  prompt_tokens: ColumnType<Int, Int | undefined, Int>;
  completion_tokens: ColumnType<Int, Int | undefined, Int>;
  use_time: ColumnType<Int, Int | undefined, Int>;
  is_stream: ColumnType<Int, Int | undefined, Int>;
  /** Shown as `channel` on the wire. */
  channel_id: ColumnType<Int, Int | undefined, Int>;
  channel_name: ColumnType<string, string | undefined, string>;
  token_id: ColumnType<Int, Int | undefined, Int>;
  group: ColumnType<string, string | undefined, string>;
  ip: ColumnType<string, string | undefined, string>;
  other: ColumnType<string, string | undefined, string>;
}

/** Counts and quota of the logs per bucket, type and grain key (db/log-rollups.ts). */
export interface LogRollupsTable {
  grain: Int;
  bucket: Int;
  type: Int;
  id_key: Int;
  name_key: string;
  model_key: string;
  log_count: Int;
  quota: Int;
}

export interface TopUpsTable {
  id: Id;
  user_id: Int;
  amount: Int;
  money: number;
  trade_no: string;
  payment_method: ColumnType<string, string | undefined, string>;
  create_time: Int;
  complete_time: ColumnType<Int, Int | undefined, Int>;
  status: string;
}

export interface MidjourneysTable {
  id: Id;
  code: ColumnType<Int, Int | undefined, Int>;
  user_id: Int;
  action: ColumnType<string, string | undefined, string>;
  mj_id: ColumnType<string, string | undefined, string>;
  prompt: ColumnType<string, string | undefined, string>;
  prompt_en: ColumnType<string, string | undefined, string>;
  description: ColumnType<string, string | undefined, string>;
  state: ColumnType<string, string | undefined, string>;
  submit_time: ColumnType<Int, Int | undefined, Int>;
  start_time: ColumnType<Int, Int | undefined, Int>;
  finish_time: ColumnType<Int, Int | undefined, Int>;
  image_url: ColumnType<string, string | undefined, string>;
  video_url: ColumnType<string, string | undefined, string>;
  video_urls: ColumnType<string, string | undefined, string>;
  status: ColumnType<string, string | undefined, string>;
  progress: ColumnType<string, string | undefined, string>;
  fail_reason: ColumnType<string, string | undefined, string>;
  channel_id: ColumnType<Int, Int | undefined, Int>;
  quota: ColumnType<Int, Int | undefined, Int>;
  buttons: ColumnType<string, string | undefined, string>;
  properties: ColumnType<string, string | undefined, string>;
  /** The key that paid (0: none recorded). */
  token_id: ColumnType<Int, Int | undefined, Int>;
  /** 1 once a failed task's quota went back (exactly once: the refund's conditional claim). */
  refunded: ColumnType<Int, Int | undefined, Int>;
  /** The first 16 hex digits of the SHA-256 of the key the task was submitted with (migration 012). */
  key_hash: ColumnType<string, string | undefined, string>;
}

export interface TasksTable {
  id: Id;
  created_at: Int;
  updated_at: Int;
  task_id: string;
  platform: string;
  user_id: Int;
  group: ColumnType<string, string | undefined, string>;
  channel_id: ColumnType<Int, Int | undefined, Int>;
  quota: ColumnType<Int, Int | undefined, Int>;
  action: ColumnType<string, string | undefined, string>;
  status: ColumnType<string, string | undefined, string>;
  fail_reason: ColumnType<string, string | undefined, string>;
  submit_time: ColumnType<Int, Int | undefined, Int>;
  start_time: ColumnType<Int, Int | undefined, Int>;
  finish_time: ColumnType<Int, Int | undefined, Int>;
  progress: ColumnType<string, string | undefined, string>;
  properties: ColumnType<string, string | undefined, string>;
  data: ColumnType<string, string | undefined, string>;
  /** The key that paid (0: none recorded). */
  token_id: ColumnType<Int, Int | undefined, Int>;
  /** 1 once a failed task's quota went back (exactly once: the refund's conditional claim). */
  refunded: ColumnType<Int, Int | undefined, Int>;
  /** The first 16 hex digits of the SHA-256 of the key the task was submitted with (migration 012). */
  key_hash: ColumnType<string, string | undefined, string>;
}

export interface QuotaDataTable {
  id: Id;
  user_id: Int;
  username: ColumnType<string, string | undefined, string>;
  model_name: ColumnType<string, string | undefined, string>;
  created_at: Int;
  token_used: ColumnType<Int, Int | undefined, Int>;
  count: ColumnType<Int, Int | undefined, Int>;
  quota: ColumnType<Int, Int | undefined, Int>;
}

/** quota_data summed over users per model and hour (migration 019): the administrator's dashboard. */
export interface QuotaDataModelsTable {
  model_name: string;
  created_at: Int;
  token_used: Int;
  count: Int;
  quota: Int;
}

/** The dashboard rows' revision per UTC day (migration 021): one more each time the usage export writes to the day. */
export interface QuotaDataDaysTable {
  /** Unix seconds of the day's first second (UTC). */
  day: Int;
  revision: Int;
}

/** A signed-in browser. The cookie holds a random secret; only its SHA-256 is stored. */
export interface SessionsTable {
  id: Id;
  token_hash: string;
  user_id: Int;
  created_at: Int;
  last_seen_at: Int;
  expires_at: Int;
  ip: ColumnType<string, string | undefined, string>;
  user_agent: ColumnType<string, string | undefined, string>;
  /** Unix seconds of the session's last re-verification (0: never), and its method. */
  verified_at: ColumnType<number, number | undefined, number>;
  verified_method: ColumnType<string, string | undefined, string>;
}

/** A user's TOTP secret (migration 014): pending until a first code enables it. */
export interface TwoFasTable {
  id: Id;
  user_id: Int;
  secret: string;
  is_enabled: ColumnType<Int, Int | undefined, Int>;
  /** The RFC 6238 time step of the last accepted code: a code at or before it is a replay. */
  last_time_step: ColumnType<Int, Int | undefined, Int>;
  last_used_at: ColumnType<Int, Int | undefined, Int>;
  created_at: Int;
  updated_at: Int;
}

/** A one-time backup code of a user's 2FA, as its SHA-256; used_at 0 while unspent. */
export interface TwoFaBackupCodesTable {
  id: Id;
  user_id: Int;
  code_hash: string;
  used_at: ColumnType<Int, Int | undefined, Int>;
  created_at: Int;
}

/** A sign-in that passed the password and waits for its 2FA code; the cookie holds the secret, this its SHA-256. */
export interface TwoFaLoginsTable {
  id: Id;
  token_hash: string;
  user_id: Int;
  created_at: Int;
  expires_at: Int;
}

/** A running relay process (see migrations/003-quota-leases.ts). */
export interface RelayNodesTable {
  /** `<name>/<boot id>`: one per process start. */
  holder: string;
  name: string;
  started_at: Int;
  heartbeat_at: Int;
}

/** Balance a relay process holds for the calls it serves. kind: 1 user quota, 2 token remain_quota. */
export interface QuotaLeasesTable {
  id: Id;
  holder: string;
  kind: Int;
  entity_id: Int;
  amount: ColumnType<Int, Int | undefined, Int>;
}

/** A Responses API turn the relay answered by conversion, for `previous_response_id` (migration 009). */
export interface StoredResponsesTable {
  id: string;
  user_id: Int;
  /** The turn this one continued ('' for the first). */
  previous_id: ColumnType<string, string | undefined, string>;
  model: ColumnType<string, string | undefined, string>;
  created_at: Int;
  expires_at: Int;
  /** JSON: this turn's input items, then the answer's output items. */
  items: string;
}

/** A user's passkey (WebAuthn credential), migration 015. Booleans are 0/1. */
export interface PasskeyCredentialsTable {
  id: Id;
  user_id: Int;
  /** base64url of the credential id, unique. */
  credential_id: string;
  /** base64url of the COSE public key. */
  public_key: string;
  sign_count: ColumnType<Int, Int | undefined, Int>;
  /** JSON array of transports ('' when the browser named none). */
  transports: ColumnType<string, string | undefined, string>;
  aaguid: ColumnType<string, string | undefined, string>;
  attestation_type: ColumnType<string, string | undefined, string>;
  user_verified: ColumnType<Int, Int | undefined, Int>;
  backup_eligible: ColumnType<Int, Int | undefined, Int>;
  backup_state: ColumnType<Int, Int | undefined, Int>;
  attachment: ColumnType<string, string | undefined, string>;
  name: ColumnType<string, string | undefined, string>;
  created_at: Int;
  /** Unix seconds of the last sign-in or verification with it (0: never). */
  last_used_at: ColumnType<Int, Int | undefined, Int>;
}

/** A passkey ceremony begun and not yet finished (migration 015): used once, expires. */
export interface PasskeyChallengesTable {
  challenge: string;
  /** 'register' | 'login' | 'verify'. */
  kind: string;
  user_id: ColumnType<Int, Int | undefined, Int>;
  session_id: ColumnType<Int, Int | undefined, Int>;
  /** The name a registration gives the new passkey. */
  name: ColumnType<string, string | undefined, string>;
  expires_at: Int;
}

/**
 * What an administrator did (migration 016, domain/audit/): who, when, from where, to what, with
 * the before and after values (secrets masked). No route updates or deletes a row; only the
 * retention job (AuditLogRetentionDays) removes old ones.
 */
export interface AuditLogsTable {
  id: Id;
  created_at: Int;
  actor_id: Int;
  actor_username: string;
  actor_role: Int;
  ip: string;
  action: string;
  target_type: string;
  target_id: string;
  summary: string;
  /** JSON: {before?, after?, params?}. */
  details: string;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  tokens: TokensTable;
  channels: ChannelsTable;
  abilities: AbilitiesTable;
  options: OptionsTable;
  redemptions: RedemptionsTable;
  logs: LogsTable;
  log_rollups: LogRollupsTable;
  top_ups: TopUpsTable;
  midjourneys: MidjourneysTable;
  tasks: TasksTable;
  quota_data: QuotaDataTable;
  quota_data_models: QuotaDataModelsTable;
  quota_data_days: QuotaDataDaysTable;
  relay_nodes: RelayNodesTable;
  quota_leases: QuotaLeasesTable;
  stored_responses: StoredResponsesTable;
  two_fas: TwoFasTable;
  two_fa_backup_codes: TwoFaBackupCodesTable;
  two_fa_logins: TwoFaLoginsTable;
  passkey_credentials: PasskeyCredentialsTable;
  passkey_challenges: PasskeyChallengesTable;
  audit_logs: AuditLogsTable;
}

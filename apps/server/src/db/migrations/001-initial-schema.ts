import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * Every table the product needs, with new-api's table and column names.
 * Text columns default to '' so reads never see NULL where new-api writes an empty string.
 */
export function initialSchema(dialect: DialectName): Migration {
  type Builder = CreateTableBuilder<string, never>;

  const withId = (builder: Builder): Builder => {
    if (dialect === 'postgres') return builder.addColumn('id', 'bigserial', (col) => col.primaryKey());
    if (dialect === 'mysql') return builder.addColumn('id', 'bigint', (col) => col.primaryKey().autoIncrement());
    return builder.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
  };
  const int = (builder: Builder, name: string, fallback = 0): Builder => builder.addColumn(name, 'bigint', (col) => col.notNull().defaultTo(fallback));
  const text = (builder: Builder, name: string): Builder =>
    // MySQL 8 only accepts a TEXT default as an expression; MariaDB takes either form.
    builder.addColumn(name, 'text', (col) => col.notNull().defaultTo(dialect === 'mysql' ? sql`('')` : ''));
  const varchar = (builder: Builder, name: string, length: number, fallback = ''): Builder =>
    builder.addColumn(name, sql`varchar(${sql.raw(String(length))})`, (col) => col.notNull().defaultTo(fallback));
  const double = (builder: Builder, name: string): Builder =>
    builder.addColumn(name, dialect === 'mysql' ? sql`double` : 'double precision', (col) => col.notNull().defaultTo(0));
  const deletedAt = (builder: Builder): Builder => builder.addColumn('deleted_at', 'bigint');

  const apply = (builder: Builder, ...steps: ((b: Builder) => Builder)[]) => steps.reduce((acc, step) => step(acc), builder);

  return {
    async up(db: Kysely<any>) {
      const table = (name: string) => withId(db.schema.createTable(name) as unknown as Builder);

      await apply(
        table('users'),
        (b) => varchar(b, 'username', 64),
        (b) => varchar(b, 'password', 255),
        (b) => varchar(b, 'display_name', 64),
        (b) => int(b, 'role', 1),
        (b) => int(b, 'status', 1),
        (b) => varchar(b, 'email', 128),
        (b) => varchar(b, 'github_id', 64),
        (b) => varchar(b, 'oidc_id', 64),
        (b) => varchar(b, 'wechat_id', 64),
        (b) => varchar(b, 'telegram_id', 64),
        (b) => varchar(b, 'linux_do_id', 64),
        (b) => b.addColumn('access_token', sql`varchar(64)`),
        (b) => int(b, 'quota'),
        (b) => int(b, 'used_quota'),
        (b) => int(b, 'request_count'),
        (b) => varchar(b, 'group', 64, 'default'),
        (b) => b.addColumn('aff_code', sql`varchar(32)`),
        (b) => int(b, 'aff_count'),
        (b) => int(b, 'aff_quota'),
        (b) => int(b, 'aff_history'),
        (b) => int(b, 'inviter_id'),
        (b) => text(b, 'setting'),
        (b) => varchar(b, 'remark', 255),
        (b) => int(b, 'created_at'),
        deletedAt,
      ).execute();
      await db.schema.createIndex('idx_users_username').unique().on('users').column('username').execute();
      await db.schema.createIndex('idx_users_access_token').unique().on('users').column('access_token').execute();
      await db.schema.createIndex('idx_users_aff_code').unique().on('users').column('aff_code').execute();
      await db.schema.createIndex('idx_users_email').on('users').column('email').execute();
      for (const column of ['github_id', 'wechat_id', 'telegram_id', 'linux_do_id', 'oidc_id']) {
        await db.schema.createIndex(`idx_users_${column}`).on('users').column(column).execute();
      }

      await apply(
        table('tokens'),
        (b) => int(b, 'user_id'),
        (b) => b.addColumn('key', sql`varchar(64)`, (col) => col.notNull()),
        (b) => int(b, 'status', 1),
        (b) => varchar(b, 'name', 255),
        (b) => int(b, 'created_time'),
        (b) => int(b, 'accessed_time'),
        (b) => int(b, 'expired_time', -1),
        (b) => int(b, 'remain_quota'),
        (b) => int(b, 'unlimited_quota'),
        (b) => int(b, 'model_limits_enabled'),
        (b) => text(b, 'model_limits'),
        (b) => text(b, 'allow_ips'),
        (b) => int(b, 'used_quota'),
        (b) => varchar(b, 'group', 64),
        deletedAt,
      ).execute();
      await db.schema.createIndex('idx_tokens_key').unique().on('tokens').column('key').execute();
      await db.schema.createIndex('idx_tokens_user_id').on('tokens').column('user_id').execute();
      await db.schema.createIndex('idx_tokens_name').on('tokens').column('name').execute();

      await apply(
        table('channels'),
        (b) => int(b, 'type'),
        (b) => text(b, 'key'),
        (b) => varchar(b, 'openai_organization', 255),
        (b) => varchar(b, 'test_model', 255),
        (b) => int(b, 'status', 1),
        (b) => varchar(b, 'name', 255),
        (b) => int(b, 'weight'),
        (b) => int(b, 'created_time'),
        (b) => int(b, 'test_time'),
        (b) => int(b, 'response_time'),
        (b) => varchar(b, 'base_url', 1024),
        (b) => text(b, 'other'),
        (b) => double(b, 'balance'),
        (b) => int(b, 'balance_updated_time'),
        (b) => text(b, 'models'),
        (b) => varchar(b, 'group', 255, 'default'),
        (b) => int(b, 'used_quota'),
        (b) => text(b, 'model_mapping'),
        (b) => varchar(b, 'status_code_mapping', 1024),
        (b) => int(b, 'priority'),
        (b) => int(b, 'auto_ban', 1),
        (b) => text(b, 'other_info'),
        (b) => varchar(b, 'tag', 255),
        (b) => text(b, 'setting'),
        (b) => text(b, 'param_override'),
        (b) => text(b, 'header_override'),
        (b) => varchar(b, 'remark', 255),
        (b) => int(b, 'expired_time'),
      ).execute();
      await db.schema.createIndex('idx_channels_name').on('channels').column('name').execute();
      await db.schema.createIndex('idx_channels_tag').on('channels').column('tag').execute();

      await db.schema
        .createTable('abilities')
        .addColumn('group', sql`varchar(64)`, (col) => col.notNull())
        .addColumn('model', sql`varchar(255)`, (col) => col.notNull())
        .addColumn('channel_id', 'bigint', (col) => col.notNull())
        .addColumn('enabled', 'bigint', (col) => col.notNull().defaultTo(1))
        .addColumn('priority', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('weight', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('tag', sql`varchar(255)`, (col) => col.notNull().defaultTo(''))
        .addPrimaryKeyConstraint('abilities_pkey', ['group', 'model', 'channel_id'])
        .execute();
      await db.schema.createIndex('idx_abilities_channel_id').on('abilities').column('channel_id').execute();
      await db.schema.createIndex('idx_abilities_tag').on('abilities').column('tag').execute();

      await db.schema
        .createTable('options')
        .addColumn('key', sql`varchar(128)`, (col) => col.primaryKey())
        .addColumn('value', 'text')
        .execute();

      await apply(
        table('redemptions'),
        (b) => int(b, 'user_id'),
        (b) => b.addColumn('key', sql`varchar(64)`, (col) => col.notNull()),
        (b) => int(b, 'status', 1),
        (b) => varchar(b, 'name', 255),
        (b) => int(b, 'quota', 100),
        (b) => int(b, 'created_time'),
        (b) => int(b, 'redeemed_time'),
        (b) => int(b, 'used_user_id'),
        (b) => int(b, 'expired_time'),
        deletedAt,
      ).execute();
      await db.schema.createIndex('idx_redemptions_key').unique().on('redemptions').column('key').execute();
      await db.schema.createIndex('idx_redemptions_name').on('redemptions').column('name').execute();

      await apply(
        table('logs'),
        (b) => int(b, 'user_id'),
        (b) => int(b, 'created_at'),
        (b) => int(b, 'type'),
        (b) => text(b, 'content'),
        (b) => varchar(b, 'username', 64),
        (b) => varchar(b, 'token_name', 255),
        (b) => varchar(b, 'model_name', 255),
        (b) => int(b, 'quota'),
        (b) => int(b, 'prompt_tokens'),
        (b) => int(b, 'completion_tokens'),
        (b) => int(b, 'use_time'),
        (b) => int(b, 'is_stream'),
        (b) => int(b, 'channel_id'),
        (b) => varchar(b, 'channel_name', 255),
        (b) => int(b, 'token_id'),
        (b) => varchar(b, 'group', 64),
        (b) => varchar(b, 'ip', 64),
        (b) => text(b, 'other'),
      ).execute();
      // The log filters: time range with type, then user, token, model, channel and group.
      await db.schema.createIndex('idx_created_at_type').on('logs').columns(['created_at', 'type']).execute();
      await db.schema.createIndex('idx_user_id_id').on('logs').columns(['user_id', 'id']).execute();
      await db.schema.createIndex('idx_logs_username').on('logs').column('username').execute();
      await db.schema.createIndex('idx_logs_token_name').on('logs').column('token_name').execute();
      await db.schema.createIndex('idx_logs_model_name').on('logs').column('model_name').execute();
      await db.schema.createIndex('idx_logs_channel_id').on('logs').column('channel_id').execute();
      await db.schema.createIndex('idx_logs_group').on('logs').column('group').execute();
      await db.schema.createIndex('idx_logs_token_id').on('logs').column('token_id').execute();

      await apply(
        table('top_ups'),
        (b) => int(b, 'user_id'),
        (b) => int(b, 'amount'),
        (b) => double(b, 'money'),
        (b) => varchar(b, 'trade_no', 255),
        (b) => varchar(b, 'payment_method', 64),
        (b) => int(b, 'create_time'),
        (b) => int(b, 'complete_time'),
        (b) => varchar(b, 'status', 32, 'pending'),
      ).execute();
      await db.schema.createIndex('idx_top_ups_trade_no').unique().on('top_ups').column('trade_no').execute();
      await db.schema.createIndex('idx_top_ups_user_id').on('top_ups').column('user_id').execute();

      await apply(
        table('midjourneys'),
        (b) => int(b, 'code'),
        (b) => int(b, 'user_id'),
        (b) => varchar(b, 'action', 40),
        (b) => varchar(b, 'mj_id', 191),
        (b) => text(b, 'prompt'),
        (b) => text(b, 'prompt_en'),
        (b) => text(b, 'description'),
        (b) => text(b, 'state'),
        (b) => int(b, 'submit_time'),
        (b) => int(b, 'start_time'),
        (b) => int(b, 'finish_time'),
        (b) => text(b, 'image_url'),
        (b) => text(b, 'video_url'),
        (b) => text(b, 'video_urls'),
        (b) => varchar(b, 'status', 20),
        (b) => varchar(b, 'progress', 30),
        (b) => text(b, 'fail_reason'),
        (b) => int(b, 'channel_id'),
        (b) => int(b, 'quota'),
        (b) => text(b, 'buttons'),
        (b) => text(b, 'properties'),
      ).execute();
      await db.schema.createIndex('idx_midjourneys_mj_id').on('midjourneys').column('mj_id').execute();
      await db.schema.createIndex('idx_midjourneys_user_id').on('midjourneys').column('user_id').execute();
      await db.schema.createIndex('idx_midjourneys_submit_time').on('midjourneys').column('submit_time').execute();

      await apply(
        table('tasks'),
        (b) => int(b, 'created_at'),
        (b) => int(b, 'updated_at'),
        (b) => varchar(b, 'task_id', 191),
        (b) => varchar(b, 'platform', 30),
        (b) => int(b, 'user_id'),
        (b) => varchar(b, 'group', 64),
        (b) => int(b, 'channel_id'),
        (b) => int(b, 'quota'),
        (b) => varchar(b, 'action', 40),
        (b) => varchar(b, 'status', 20),
        (b) => text(b, 'fail_reason'),
        (b) => int(b, 'submit_time'),
        (b) => int(b, 'start_time'),
        (b) => int(b, 'finish_time'),
        (b) => varchar(b, 'progress', 20),
        (b) => text(b, 'properties'),
        (b) => text(b, 'data'),
      ).execute();
      await db.schema.createIndex('idx_tasks_task_id').on('tasks').column('task_id').execute();
      await db.schema.createIndex('idx_tasks_user_id').on('tasks').column('user_id').execute();
      await db.schema.createIndex('idx_tasks_submit_time').on('tasks').column('submit_time').execute();

      await apply(
        table('quota_data'),
        (b) => int(b, 'user_id'),
        (b) => varchar(b, 'username', 64),
        (b) => varchar(b, 'model_name', 255),
        (b) => int(b, 'created_at'),
        (b) => int(b, 'token_used'),
        (b) => int(b, 'count'),
        (b) => int(b, 'quota'),
      ).execute();
      await db.schema.createIndex('idx_quota_data_user_id').on('quota_data').column('user_id').execute();
      await db.schema.createIndex('idx_quota_data_created_at').on('quota_data').column('created_at').execute();
      await db.schema.createIndex('idx_quota_data_model_name').on('quota_data').column('model_name').execute();
    },
    async down(db: Kysely<any>) {
      for (const name of ['quota_data', 'tasks', 'midjourneys', 'top_ups', 'logs', 'redemptions', 'options', 'abilities', 'channels', 'tokens', 'users']) {
        await db.schema.dropTable(name).ifExists().execute();
      }
    },
  };
}

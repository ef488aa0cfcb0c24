import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './db-types.js';
import { initialSchema } from './migrations/001-initial-schema.js';
import { sessionsAndUsernameKeys } from './migrations/002-sessions.js';
import { quotaLeases } from './migrations/003-quota-leases.js';
import { logIndexes } from './migrations/004-log-indexes.js';
import { quotaDataKey } from './migrations/005-quota-data-key.js';
import { quotaReminders } from './migrations/006-quota-reminders.js';
import { logQueryIndexes } from './migrations/007-log-query-indexes.js';
import { taskRefunds } from './migrations/008-task-refunds.js';
import { storedResponses } from './migrations/009-stored-responses.js';
import { rateLimits } from './migrations/010-rate-limits.js';
import { channelInfo } from './migrations/011-channel-info.js';
import { taskKeys } from './migrations/012-task-keys.js';
import { sessionVerification } from './migrations/013-session-verification.js';
import { twoFactor } from './migrations/014-two-factor.js';
import { passkeys } from './migrations/015-passkeys.js';
import { auditLogs } from './migrations/016-audit-logs.js';
import { logPartitions } from './migrations/017-log-partitions.js';
import { logRollups } from './migrations/018-log-rollups.js';
import { quotaDataModels } from './migrations/019-quota-data-models.js';
import { mysqlLogPartitions } from './migrations/020-mysql-log-partitions.js';
import { quotaDataDays } from './migrations/021-quota-data-days.js';

/** Versioned migrations, in order. Never edit a released one: add the next. */
export const migrationsFor = (db: Db): Record<string, Migration> => ({
  '001-initial-schema': initialSchema(db.dialect),
  '002-sessions': sessionsAndUsernameKeys(db.dialect),
  '003-quota-leases': quotaLeases(db.dialect),
  '004-log-indexes': logIndexes(db.dialect),
  '005-quota-data-key': quotaDataKey(db.dialect),
  '006-quota-reminders': quotaReminders(),
  '007-log-query-indexes': logQueryIndexes(db.dialect),
  '008-task-refunds': taskRefunds(),
  '009-stored-responses': storedResponses(db.dialect),
  '010-rate-limits': rateLimits(),
  '011-channel-info': channelInfo(db.dialect),
  '012-task-keys': taskKeys(),
  '013-session-verification': sessionVerification(),
  '014-two-factor': twoFactor(db.dialect),
  '015-passkeys': passkeys(db.dialect),
  '016-audit-logs': auditLogs(db.dialect),
  '017-log-partitions': logPartitions(db.dialect),
  '018-log-rollups': logRollups(db.dialect),
  '019-quota-data-models': quotaDataModels(db.dialect),
  '020-mysql-log-partitions': mysqlLogPartitions(db.dialect),
  '021-quota-data-days': quotaDataDays(),
});

export async function migrateToLatest(db: Db): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(db) };
  // 010 came after 011 and 012 had shipped: a database that ran those runs it now, out of order.
  const migrator = new Migrator({ db: db.kysely, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`);
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bucketOf, rollupDeltas } from './log-rollups.js';

/*
 * The rollups are exact only if every write that adds, changes or removes logs changes them too.
 * The code that writes logs is listed here; a new insert, update or delete of logs anywhere else
 * fails this test, so it cannot forget them.
 */
const SERVER_SRC = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where logs are written, and how each keeps the rollups. */
const LOG_WRITERS: Record<string, string> = {
  'domain/logs/log-buffer.ts': 'the batch writer and insertLogRows add their rows to the rollups',
  'domain/logs/log-retention.ts': 'deleted rows are taken out; a dropped month partition drops its buckets',
  'db/migrations/017-log-partitions.ts': 'copies the table before the rollups exist (018 builds them)',
};

const WRITES_LOGS = /(insertInto|deleteFrom|updateTable|insertReturningId\([^,]+,)\s*\(?\s*'logs'|\b(insert\s+into|delete\s+from|update)\s+logs\b/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'testing' || name === 'test-support' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('who writes logs', () => {
  it('only the listed modules insert, update or delete logs', () => {
    const writers = sourceFiles(SERVER_SRC)
      .filter((path) => WRITES_LOGS.test(readFileSync(path, 'utf8')))
      .map((path) => relative(SERVER_SRC, path).split('\\').join('/'))
      .sort();
    expect(writers).toEqual(Object.keys(LOG_WRITERS).sort());
  });
});

describe('rollup keys', () => {
  it('a row counts once in every grain, in the hour it falls in', () => {
    const at = Date.UTC(2027, 2, 3, 17, 59, 59) / 1000;
    expect(bucketOf(at)).toBe(Date.UTC(2027, 2, 3, 17) / 1000);
    expect(bucketOf(at + 1)).toBe(Date.UTC(2027, 2, 3, 18) / 1000);
    const row = { created_at: at, type: 2, user_id: 7, username: 'ann', token_name: 'ci', model_name: 'gpt-4o', channel_id: 3, group: 'vip', quota: 50 };
    const added = rollupDeltas([row, { ...row, created_at: at - 10, quota: 25 }]);
    expect(added).toHaveLength(7);
    for (const delta of added) expect(delta).toMatchObject({ log_count: 2, quota: 75 });
    const removed = rollupDeltas([row], -1);
    for (const delta of removed) expect(delta).toMatchObject({ log_count: -1, quota: -50 });
  });
});

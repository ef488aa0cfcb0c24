import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyTableSummary, formatSummary, stderrProgress } from './import-report.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run import -- …` as a user runs it: the CLI through tsx, configured by the environment. */
const runImport = (args: string[], env: Record<string, string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });

let dir = '';
let source = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'modelgate-import-cli-'));
  source = join(dir, 'new-api.db');
  const database = new SqliteDatabase(source);
  database.exec(readFileSync(new URL('./__fixtures__/new-api-sqlite.sql', import.meta.url), 'utf8'));
  database.exec(`INSERT INTO users (id, username, password) VALUES (1, 'root', '$2a$10$7EqJtq98hPqEX7fNZaFWoOhi5BWX4Z1HYBv8J3LC5RTjuEadLvSAi');
INSERT INTO options (key, value) VALUES ('RetryTimes', '2'), ('SomethingElse', '1');`);
  database.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run import', () => {
  it('imports into the database SQLITE_PATH names and prints the summary; a second run inserts nothing', async () => {
    const env = { SQLITE_PATH: join(dir, 'target.db') };
    const first = await runImport([source], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`importing ${source} into ${env.SQLITE_PATH}`);
    expect(first.stdout).toMatch(/users\s+1\s+1\s+0\s+0\s+0\s+0\s+0/);
    expect(first.stdout).toMatch(/options\s+2\s+1\s+0\s+0\s+0\s+1\s+0/);
    expect(first.stdout).toContain('options not known to modelgate, skipped: SomethingElse');
    const second = await runImport([source, '--batch-size', '1'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/users\s+1\s+0\s+0\s+1\s+0\s+0\s+0/);
  });

  it('refuses bad input with exit code 2 and a message that never shows a password', async () => {
    const env = { SQLITE_PATH: join(dir, 'other.db') };
    const missing = await runImport([join(dir, 'nope.db')], env);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toContain('no SQLite file at');
    const usage = await runImport([], env);
    expect(usage).toMatchObject({ code: 2 });
    expect(usage.stderr).toContain('usage: npm run import --');
    const itself = await runImport([env.SQLITE_PATH], env);
    expect(itself).toMatchObject({ code: 2 });
    expect(itself.stderr).toContain("modelgate's own database");
    const unreachable = await runImport(['postgres://newapi:hunter2-secret@127.0.0.1:1/newapi'], env);
    expect(unreachable).toMatchObject({ code: 2 });
    expect(unreachable.stderr).toContain('cannot connect to postgres://newapi:***@127.0.0.1:1/newapi');
    expect(unreachable.stderr).not.toContain('hunter2');
  });
});

describe('the progress bar', () => {
  const fakeStream = (isTTY: boolean) => {
    const writes: string[] = [];
    return { writes, stream: { isTTY, write: (text: string) => writes.push(text) } as unknown as NodeJS.WriteStream };
  };

  it('redraws one line on a terminal and ends it when the table is done', () => {
    const { writes, stream } = fakeStream(true);
    const progress = stderrProgress(stream);
    progress.start('logs', 4000);
    progress.advance('logs', 1000, 4000);
    progress.finish({ ...emptyTableSummary('logs'), read: 4000 });
    expect(writes[0]).toMatch(/^\rlogs\s+\[-{24}\]\s+0%\s+0\/4000/);
    expect(writes[1]).toMatch(/^\rlogs\s+\[#{6}-{18}\]\s+25%\s+1000\/4000/);
    expect(writes.at(-2)).toMatch(/\[#{24}\] 100%  4000\/4000/);
    expect(writes.at(-1)).toBe('\n');
  });

  it('writes one line per table where stderr is not a terminal', () => {
    const { writes, stream } = fakeStream(false);
    const progress = stderrProgress(stream);
    progress.start('users', 3);
    progress.advance('users', 3, 3);
    progress.finish({ ...emptyTableSummary('users'), read: 3 });
    progress.finish({ ...emptyTableSummary('redemptions'), absent: true });
    expect(writes).toEqual(['users: 3 rows read\n', 'redemptions: not in the source\n']);
  });

  it('says when a table is absent from the source in the summary', () => {
    const text = formatSummary({ source: 'old.db', tables: [{ ...emptyTableSummary('redemptions'), absent: true }], warnings: [] });
    expect(text).toMatch(/redemptions\s+absent/);
    expect(text).not.toContain('kept:');
  });
});

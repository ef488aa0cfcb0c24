import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import type { AppContext } from '../app-context.js';
import { composeServer } from '../composition-root.js';
import { loadConfig } from '../config/env.js';
import type { RelayRuntime } from '../relay/relay-runtime.js';
import type { TaskRuntime } from '../relay/tasks/task-runtime.js';

export interface TestApp {
  app: FastifyInstance;
  context: AppContext;
  /** The relay's services (tests flush its batches before reading totals). */
  relay: RelayRuntime;
  /** The task relays' services (tests run poll rounds and refunds through them). */
  tasks: TaskRuntime;
  /** Directory holding this app's SQLite file. */
  dir: string;
  close(): Promise<void>;
  /** Signs in and returns headers (cookie + New-Api-User) for console calls as that user. */
  login(username?: string, password?: string): Promise<Record<string, string>>;
}

/**
 * A whole app in process against a fresh SQLite file (or `SQL_DSN` given in env), the way the
 * tests of every module start one. Rate limits are off unless the test sets them.
 */
let testAppCount = 0;

export interface TestAppOptions {
  /** Where the app's log lines go (with LOG_LEVEL set in env), for tests of what is logged. */
  logDestination?: pino.DestinationStream;
}

export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-test-'));
  const config = loadConfig({
    SQLITE_PATH: join(dir, 'modelgate.db'),
    SESSION_SECRET: 'test-session-secret',
    GLOBAL_API_RATE_LIMIT: '0',
    GLOBAL_WEB_RATE_LIMIT: '0',
    CRITICAL_RATE_LIMIT: '0',
    LOG_LEVEL: 'silent',
    // The fixed test key (vitest.config.ts): PostgreSQL and MySQL runs need one; '' in env tries the key file.
    MODELGATE_SECRET_KEY: process.env.MODELGATE_SECRET_KEY ?? '',
    // Apps of one test process share a host and port name; a restart test passes its own.
    NODE_NAME: `test-${process.pid}-${(testAppCount += 1)}`,
    ...env,
  });
  const logger = options.logDestination ? pino({ level: config.logLevel }, options.logDestination) : pino({ level: config.logLevel });
  const { context, relay, tasks, app } = await composeServer({ config, logger, version: 'test' });
  await app.ready();
  return {
    app,
    context,
    relay,
    tasks,
    dir,
    async close() {
      await app.close();
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
    async login(username = 'root', password = '123456') {
      const response = await app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password } });
      const body = response.json() as { success: boolean; message: string; data: { id: number } };
      if (!body.success) throw new Error(`login as ${username} failed: ${body.message}`);
      return { cookie: sessionCookieOf(response), 'new-api-user': String(body.data.id) };
    },
  };
}

export function sessionCookieOf(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((candidate) => candidate.name === 'session');
  if (!cookie) throw new Error('no session cookie was set');
  return `session=${cookie.value}`;
}

// Playwright config for the console's end-to-end tests (specs live in e2e/).
//
// The real server (apps/server/src/main.ts) is started by Playwright's
// `webServer` option with a fresh SQLite file per run, and the specs reach it
// through `baseURL`. The browser is Debian's Chromium (/usr/bin/chromium):
// Playwright's own browser download is impossible here, so install with
// PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, devices } from '@playwright/test';

const root = dirname(fileURLToPath(import.meta.url));
const tmpDir = resolve(root, '.tmp');
mkdirSync(tmpDir, { recursive: true });

// Playwright loads this file in the runner AND in every worker process. The
// port and the database path must be chosen once (in the runner) and shared,
// so they are stored in process.env, which the workers inherit.
if (!process.env.MODELGATE_E2E_PORT) {
  process.env.MODELGATE_E2E_PORT = String(pickPort(3917));
}
if (!process.env.MODELGATE_E2E_SQLITE) {
  process.env.MODELGATE_E2E_SQLITE = resolve(tmpDir, `e2e-${Date.now()}.db`);
}
const port = Number(process.env.MODELGATE_E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;
const CI = process.env.CI === 'true' || process.env.CI === '1';

export default defineConfig({
  testDir: 'e2e',
  // One worker: every spec talks to the same server/database, and the
  // machines only have 2 cores (one is busy with the server).
  workers: 1,
  fullyParallel: false,
  retries: CI ? 1 : 0,
  forbidOnly: CI,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  // Hard stop so a hung browser/server can never eat CI's time budget.
  globalTimeout: 15 * 60_000,
  // `list` for humans; JSON is read by scripts/test.sh for the summed counts.
  reporter: [['list'], ['json', { outputFile: resolve(tmpDir, 'playwright-results.json') }]],
  outputDir: resolve(root, 'test-results'),
  use: {
    baseURL,
    screenshot: 'only-on-failure',
    trace: 'retain-on-first-failure',
    // Deterministic rendering regardless of the machine's LANG/TZ.
    locale: 'en-US',
    timezoneId: 'UTC',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: '/usr/bin/chromium',
          args: [
            '--no-sandbox', // running as root
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking', // no network but loopback here
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
    },
  ],
  webServer: {
    command: 'npx tsx apps/server/src/main.ts',
    cwd: root,
    url: `${baseURL}/api/status`,
    // Never attach to some other server left on the port: the run needs its
    // own fresh database.
    reuseExistingServer: false,
    timeout: 90_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
    env: {
      ...(process.env as Record<string, string>),
      PORT: String(port),
      SQLITE_PATH: process.env.MODELGATE_E2E_SQLITE!,
      SESSION_SECRET: 'e2e-secret',
      // SQLite only: never pick up a SQL_DSN/REDIS_CONN_STRING from the shell.
      SQL_DSN: '',
      REDIS_CONN_STRING: '',
      // The secrets at rest are sealed with the key file the server writes beside the database.
      MODELGATE_SECRET_KEY: '',
      // One browser on one IP makes far more requests (and logins) in a few
      // minutes than the per-IP limits meant for humans allow; 0 disables them.
      GLOBAL_API_RATE_LIMIT: '0',
      GLOBAL_WEB_RATE_LIMIT: '0',
      CRITICAL_RATE_LIMIT: '0',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
  },
});

/**
 * Returns `preferred` if nothing listens on it, else a free ephemeral port.
 * Synchronous (config files can't await reliably), via a tiny child node process.
 */
function pickPort(preferred: number): number {
  const script = `
    const net = require('node:net');
    const tryListen = (p) => new Promise((ok, fail) => {
      const s = net.createServer();
      s.once('error', fail);
      s.listen(p, '127.0.0.1', () => { const a = s.address().port; s.close(() => ok(a)); });
    });
    tryListen(${preferred}).catch(() => tryListen(0)).then((p) => process.stdout.write(String(p)));
  `;
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim());
}

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

// Two workers, each with its own server and database: the specs change global settings (options,
// the root account, rate limits) and seed rows they count, so two workers never share a server.
// Playwright loads this file in the runner AND in every worker process; the runner picks the ports
// and database paths once and stores them in process.env, which the workers inherit, and each
// worker then points MODELGATE_E2E_PORT / MODELGATE_E2E_SQLITE (what the specs read) at the server
// of its parallel index (TEST_PARALLEL_INDEX, set before a worker loads this file).
// MODELGATE_E2E_WORKERS=1 runs every spec against one server, one after another. On the 2-core VM,
// while every test recorded a trace, two workers ran the 149 tests in 10.8 minutes against 11.5
// with one: both keep the two cores busy (Chromium's renderer, GPU and browser processes and the
// server), but the waits overlap. With traces only on a retry, two workers take 6.8 minutes.
const WORKERS = Math.max(1, Number(process.env.MODELGATE_E2E_WORKERS ?? 2));
if (!process.env.MODELGATE_E2E_PORTS) {
  const ports: number[] = [];
  for (let index = 0; index < WORKERS; index++) ports.push(pickPort(3917 + index, ports));
  process.env.MODELGATE_E2E_PORTS = ports.join(',');
  const stamp = Date.now();
  process.env.MODELGATE_E2E_SQLITES = ports.map((_, index) => resolve(tmpDir, `e2e-${stamp}-${index}.db`)).join(',');
}
const ports = process.env.MODELGATE_E2E_PORTS.split(',').map(Number);
const databases = process.env.MODELGATE_E2E_SQLITES!.split(',');
const workerIndex = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
process.env.MODELGATE_E2E_PORT = String(ports[workerIndex]);
process.env.MODELGATE_E2E_SQLITE = databases[workerIndex];
const baseURL = `http://127.0.0.1:${ports[workerIndex]}`;
const CI = process.env.CI === 'true' || process.env.CI === '1';

export default defineConfig({
  testDir: 'e2e',
  // A spec file runs whole in one worker, its tests in order; the files are shared out.
  workers: ports.length,
  fullyParallel: false,
  retries: CI ? 1 : 0,
  forbidOnly: CI,
  // Two workers share two cores: a long spec takes up to about twice its time alone, and the VM
  // has spells at half its speed. The passkey flow (13.6 s alone) took 22-31 s in full local runs
  // and went over 60 s twice in a row in one CI run (first try and retry, each further along than
  // a hang would leave it): a test's budget is four times its longest full-run time, not two.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  // Hard stop so a hung browser/server can never eat CI's time budget; the 149 tests take 7-14
  // minutes, so a stop at 15 (as before) would fail a whole slow run that had nothing wrong.
  globalTimeout: 30 * 60_000,
  // `list` for humans; JSON is read by scripts/test.sh for the summed counts.
  reporter: [['list'], ['json', { outputFile: resolve(tmpDir, 'playwright-results.json') }]],
  outputDir: resolve(root, 'test-results'),
  use: {
    baseURL,
    screenshot: 'only-on-failure',
    // A trace only for a retried test (CI retries once): recording one for every test (DOM snapshots
    // and screencast frames at each action) cost a third of the run's time and CPU
    // (settings-operation alone: 88 s and 147 CPU-seconds with, 59 s and 90 without). Run with
    // `--trace on` to record them locally.
    trace: 'on-first-retry',
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
  webServer: ports.map((port, index) => ({
    command: 'npx tsx apps/server/src/main.ts',
    cwd: root,
    url: `http://127.0.0.1:${port}/api/status`,
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
      SQLITE_PATH: databases[index],
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
  })),
});

/**
 * Returns `preferred` if nothing listens on it, else a free ephemeral port not in `taken` (the ports
 * already picked for the other workers' servers, closed again until their servers start).
 * Synchronous (config files can't await reliably), via a tiny child node process.
 */
function pickPort(preferred: number, taken: number[]): number {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = probePort(attempt === 0 ? preferred : 0);
    if (!taken.includes(port)) return port;
  }
  throw new Error(`no free port found beside ${taken.join(', ')}`);
}

function probePort(preferred: number): number {
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

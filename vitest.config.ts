// Root Vitest config: one run covers every workspace's unit/integration tests.
// E2E specs (e2e/, Playwright) and benchmarks (bench/) are deliberately not
// included: benchmarks are never tests, and e2e runs under Playwright.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/**/src/**/*.test.{ts,tsx}', 'packages/**/src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', 'e2e/**', 'bench/**'],
    environment: 'node',
    // Semi's icons import their CSS: its ES build, inlined, goes through Vite, which loads CSS imports as empty modules.
    alias: { '@douyinfe/semi-icons': '@douyinfe/semi-icons/lib/es/index.js' },
    server: { deps: { inline: [/@douyinfe\/semi-icons/] } },
    // Forks (child processes) rather than threads: native modules such as
    // better-sqlite3 and servers bound to ports behave better with process isolation.
    pool: 'forks',
    // Each worker process keeps its modules between test files instead of importing the server's whole
    // module graph again for every one of the 220-odd files (import time 147 s → 18 s over the 41 /api
    // files). Test files therefore leave no global state behind: fake timers are restored in afterEach,
    // no test writes process.env, and every app instance owns its registries.
    isolate: false,
    // The machines have 2 cores; more workers only add contention and
    // flakiness in tests that hit PostgreSQL/MariaDB/Redis.
    fileParallelism: true,
    maxWorkers: 2,
    // A fixed key for the secrets sealed at rest: PostgreSQL and MySQL refuse to start without one,
    // and servers the tests spawn inherit it.
    env: { MODELGATE_SECRET_KEY: 'bW9kZWxnYXRlLXRlc3Qtc2VjcmV0LWtleS0zMi1ieXQ=' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // Zero unit tests is not an error of the runner itself; scripts/test.sh
    // still sums counts across Vitest and Playwright.
    passWithNoTests: true,
    // 'default' for humans, then our reporter, which prints the plain closing
    // line "N passed, N failed, N skipped" last (the project guide requires it).
    reporters: ['default', './tests/reporter.ts'],
  },
});

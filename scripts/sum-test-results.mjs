#!/usr/bin/env node
// Sums the results of the test stages run by scripts/test.sh and prints the
// ONE closing line CI reads:  N passed, N failed, N skipped
// Exits 1 if anything failed, else 0. Plain node, no dependencies (no jq).
//
// Usage: node scripts/sum-test-results.mjs STAGE...
//   each STAGE is  kind:exitCode:path  with kind one of
//     vitest      path = JSON written by tests/reporter.ts ({passed, failed, skipped})
//     playwright  path = Playwright's JSON report (stats.expected/unexpected/flaky/skipped)
//     step        path = a label; a non-zero exit code counts as one failure
//                 (e.g. the web build), zero counts as nothing
//   exitCode "skip" means the stage did not run.
import { existsSync, readFileSync } from 'node:fs';

const total = { passed: 0, failed: 0, skipped: 0 };

function readJson(path) {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    console.error(`[test] cannot parse ${path}: ${error.message}`);
    return undefined;
  }
}

for (const arg of process.argv.slice(2)) {
  const [kind, rcText, ...rest] = arg.split(':');
  const path = rest.join(':');
  if (rcText === 'skip') continue;
  const rc = Number(rcText);
  const counts = { passed: 0, failed: 0, skipped: 0 };

  if (kind === 'vitest') {
    const data = readJson(path);
    if (data) {
      counts.passed = data.passed ?? 0;
      counts.failed = data.failed ?? 0;
      counts.skipped = data.skipped ?? 0;
    }
  } else if (kind === 'playwright') {
    const data = readJson(path);
    if (data?.stats) {
      const s = data.stats;
      // flaky = failed first, passed on retry: it passed.
      counts.passed = (s.expected ?? 0) + (s.flaky ?? 0);
      counts.failed = s.unexpected ?? 0;
      counts.skipped = s.skipped ?? 0;
      // Errors outside any test (webServer did not start, global timeout, ...).
      counts.failed += Array.isArray(data.errors) ? data.errors.length : 0;
    }
  } else if (kind !== 'step') {
    console.error(`[test] unknown stage kind: ${kind}`);
    process.exit(2);
  }

  // A stage that exited non-zero must never be summed as green, even if it
  // crashed before writing its report.
  if (rc !== 0 && counts.failed === 0) counts.failed = 1;

  console.log(`[test] ${kind}${kind === 'step' ? ` (${path})` : ''}: exit ${rc}, ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}

// Must be the very last line on stdout.
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 ? 1 : 0);

// Custom Vitest (4.x) reporter: prints ONE plain closing line
//
//   N passed, N failed, N skipped
//
// after the default reporter's summary. The project guide requires this
// line, and CI reads plain "N passed, N failed" lines. It also writes the
// same counts as JSON to $MODELGATE_VITEST_SUMMARY (if set) so
// scripts/test.sh can add them to Playwright's counts without scraping stdout.
//
// Written against the Vitest 4 reporter API (onTestRunEnd + TestModule
// tree); the legacy onFinished(files) hook is not used.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

export interface RunCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export function countResults(
  testModules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<SerializedError>,
): RunCounts {
  const counts: RunCounts = { passed: 0, failed: 0, skipped: 0 };
  for (const mod of testModules) {
    let failedTests = 0;
    for (const test of mod.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') counts.passed++;
      else if (state === 'skipped') counts.skipped++;
      else {
        // 'failed', or 'pending' = never finished (crashed worker, interrupted
        // run): not a pass, so it must not disappear from the totals.
        counts.failed++;
        failedTests++;
      }
    }
    // A file that failed outside any test (syntax error, failing import,
    // beforeAll/afterAll throwing) may have no failed test: count it once so
    // the closing line can never say "0 failed" for a red run.
    if (failedTests === 0 && (mod.state() === 'failed' || mod.errors().length > 0)) {
      counts.failed++;
    }
  }
  // Errors outside any test (e.g. unhandled rejections) also make the run red.
  counts.failed += unhandledErrors.length;
  return counts;
}

export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): void {
    const counts = countResults(testModules, unhandledErrors);
    // Interrupted (Ctrl-C, bail) with nothing counted as failed is still not green.
    if (reason === 'interrupted' && counts.failed === 0) counts.failed = 1;

    const file = process.env.MODELGATE_VITEST_SUMMARY;
    if (file) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ ...counts, reason }) + '\n');
    }
    // Plain line, alone, no colours: this is what CI and test.sh look for.
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}

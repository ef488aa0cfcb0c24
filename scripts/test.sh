#!/usr/bin/env bash
# scripts/test.sh — what `npm test` runs: EVERYTHING.
#
#   1. scripts/services.sh   install/start PostgreSQL, MariaDB, Redis (+ chromium,
#                            fonts, wrk) and export MODELGATE_TEST_PG/_MYSQL/_REDIS
#   2. type-check every workspace (npm run typecheck: tsc) in the background, beside lint (npm run
#      lint: Biome, dependency-cruiser), the web console's build (the e2e server serves
#      apps/web/dist), the coding-agent CLIs the relay's agent tests run (scripts/agent-clis.mjs:
#      npm installs them once into ~/.cache/modelgate/agent-clis/) and Vitest; its output is
#      printed once Vitest has ended
#   4. Vitest      (unit + integration, root vitest.config.ts)
#   5. Playwright  (e2e/, against the real server) — runs even if Vitest failed
#   6. ONE closing line "N passed, N failed, N skipped" summing both runners
#      (CI reads exactly that last line); exit non-zero if anything failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .tmp

VITEST_SUMMARY=.tmp/vitest-summary.json
PLAYWRIGHT_JSON=.tmp/playwright-results.json
rm -f "$VITEST_SUMMARY" "$PLAYWRIGHT_JSON"   # never read a previous run's results
# Old e2e databases from earlier runs (each run makes a fresh one).
find .tmp -maxdepth 1 -name 'e2e-*.db*' -mmin +120 -delete 2>/dev/null || true

# Print the closing line for a run that could not even start testing, so the
# last line is still a count CI can read, then fail.
fail_early() {
  echo "[test] $1" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
}

step() { printf '\n[test] ==== %s ====\n' "$*"; }
started=$SECONDS

# --- 1. services ------------------------------------------------------------
step "services"
# Sourced so the MODELGATE_TEST_* variables are exported to the runners below.
# shellcheck source=scripts/services.sh
source scripts/services.sh || fail_early "scripts/services.sh failed: the test databases are not available"
[[ -d node_modules ]] || fail_early "node_modules missing: run 'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci' first"

# --- 2. type-check, lint and web build, side by side ----------------------------
# tsx runs code with type errors, so the tests alone would not catch them.
# Biome: the formatter (a file not formatted fails) and a few strict lint rules (biome.json): unused code, the React hooks rules, no `any` in product code.
# dependency-cruiser (.dependency-cruiser.cjs): no import cycle anywhere, no import up the server's layers.
# The web build feeds Playwright (the e2e server serves apps/web/dist).
# tsc is single-threaded, so it runs beside lint, the build and Vitest (about 45 s saved on two
# cores); its output is printed whole once it ends rather than interleaved.
step "typecheck (in the background, until Vitest ends) + lint + build web console"
typecheck_log=.tmp/typecheck.log
# Claude Code, Codex and Gemini CLI for apps/server/src/relay/coding-agents.test.ts: about 15 s from
# the registry the first time (370 MB of tarballs, 900 MB unpacked), a file read once installed; it
# mostly waits on the network, so it runs in the background too. Not counted as a step: if it fails,
# those tests fail and say how to install.
agent_clis_log=.tmp/agent-clis.log
node scripts/agent-clis.mjs >"$agent_clis_log" 2>&1 &
agent_clis_pid=$!
set +e
npm run typecheck >"$typecheck_log" 2>&1 &
typecheck_pid=$!
npm run lint
lint_rc=$?
build_rc=skip
if [[ -f apps/web/package.json ]] \
  && node -e 'process.exit(require("./apps/web/package.json").scripts?.build ? 0 : 1)'; then
  npm run build -w apps/web
  build_rc=$?
fi
set -e

step "coding-agent CLIs"
wait "$agent_clis_pid" || echo "[test] the coding-agent CLIs could not be installed: their tests will fail" >&2
cat "$agent_clis_log"

# --- 4. Vitest --------------------------------------------------------------
# tsc goes on beside Vitest: with two workers Vitest leaves about a quarter of the two cores idle
# (tests waiting on servers and timers), where tsc's minute of one core fits; waited for after it.
step "vitest"
set +e
MODELGATE_VITEST_SUMMARY="$VITEST_SUMMARY" npx --no -- vitest run --config vitest.config.ts
vitest_rc=$?
wait "$typecheck_pid"
typecheck_rc=$?
set -e
step "typecheck (exit $typecheck_rc)"
cat "$typecheck_log"

# --- 5. Playwright ----------------------------------------------------------
# Only when there are specs ("No tests found" is an error for Playwright), and
# only when the console built (otherwise every page test fails for one reason,
# already counted as the build's failure).
pw_rc=skip
if [[ -d e2e ]] && [[ -n "$(find e2e -type f \( -name '*.spec.ts' -o -name '*.test.ts' \) -print -quit)" ]]; then
  if [[ "$build_rc" == 0 || "$build_rc" == skip ]]; then
    step "playwright"
    set +e
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npx --no -- playwright test
    pw_rc=$?
    set -e
  else
    echo "[test] web build failed: Playwright not run" >&2
  fi
else
  echo "[test] no e2e specs: Playwright not run"
fi

# --- 6. summary -------------------------------------------------------------
step "summary ($((SECONDS - started))s)"
# Last line of output = the summed closing line; exit code = 1 if any failure.
exec node scripts/sum-test-results.mjs \
  "step:${typecheck_rc}:typecheck" \
  "step:${lint_rc}:lint" \
  "step:${build_rc}:web build" \
  "vitest:${vitest_rc}:${VITEST_SUMMARY}" \
  "playwright:${pw_rc}:${PLAYWRIGHT_JSON}"

#!/usr/bin/env bash
# Prints the end of `make test`: which tests failed (from cargo's output) and which were
# skipped because a real dataset could not be obtained (from the tests' skip log).
# Usage: tools/test-summary.sh CARGO_TEST_OUTPUT SKIP_LOG
out=$1
skips=$2
echo
echo "==================== test summary ===================="
failed=$(grep -E '^test .* \.\.\. FAILED$' "$out" | sed -E 's/^test (.*) \.\.\. FAILED$/  \1/' | sort -u)
# cargo names the failing test targets at its end: one ("error: test failed, to rerun
# pass `--test x`") or several ("error: N targets failed:" and one "    `--test x`" a line).
bins=$( { grep -E '^error: test failed, to rerun pass' "$out" | sed -E 's/^error: test failed, to rerun pass /  /';
          sed -n '/^error: [0-9]* targets failed:/,$p' "$out" | grep -E '^ +`' | sed -E 's/^ +/  /'; } )
if [ -n "$failed" ] || [ -n "$bins" ]; then
  echo "FAILED tests:"
  [ -n "$failed" ] && echo "$failed"
  [ -n "$bins" ] && { echo "in test targets (rerun with):"; echo "$bins"; }
else
  echo "failed: none"
fi
if [ -s "$skips" ]; then
  n=$(sort -u "$skips" | wc -l)
  echo "SKIPPED ($n, a dataset could not be obtained; set MAGCL_DATA_MIRROR or go online, or set MAGCL_REQUIRE_DATA=1 to make these failures):"
  sort -u "$skips" | sed 's/^/  /'
else
  echo "skipped: none"
fi
echo "======================================================"

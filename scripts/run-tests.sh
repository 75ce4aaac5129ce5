#!/usr/bin/env bash
# What `make test` runs: builds the tests (a warning in Strata's own sources fails the build), runs
# XCTest and Swift Testing, and ends with the names of the tests that failed, so that the last lines
# printed say what went wrong. Arguments go to `swift test` (e.g. --filter NAME).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
build_log=.build/make-test-build.log
test_log=.build/make-test.log

# The package's traits (Package.swift): the tests cover the sync library, the command and encryption too.
traits=(--traits Sync,CLI,Encryption)

swift build "${traits[@]}" --build-tests 2>&1 | tee "$build_log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "make test: the build failed (errors above)"
    exit "$status"
fi
# Only files this build compiled print warnings: a fresh clone (CI) sees all of them.
warnings=$(grep -E "^$(pwd)/(Sources|Tests|Benchmarks/Sources)/[^:]+:[0-9]+:[0-9]+: warning:" "$build_log" | sort -u)
if [ -n "$warnings" ]; then
    echo
    echo "make test: the build printed warnings in Strata's own code (it must print none):"
    echo "$warnings"
    exit 1
fi

swift test "${traits[@]}" --skip-build "$@" 2>&1 | tee "$test_log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ]; then exit 0; fi

echo
echo "make test: FAILED (exit status $status)"
failed=$( (grep -oE "Test Case '[^']+' failed" "$test_log" | sed -E "s/Test Case '([^']+)' failed/  XCTest: \1/"
    grep -E "^✘ Test .+ failed after " "$test_log" | grep -v "^✘ Test run with" |
        sed -E 's/^✘ Test (.+) failed after .*$/  Swift Testing: \1/') | sort -u)
if [ -n "$failed" ]; then
    echo "failed tests:"
    echo "$failed"
else
    # No test reported a failure: the process crashed. Name what was running.
    last=$(grep -E "^◇ Test .* started|^Test Case '[^']+' started" "$test_log" | tail -n 3)
    echo "no test reported a failure: the test process stopped (a crash?) while running:"
    echo "$last" | sed 's/^/  /'
fi
exit "$status"

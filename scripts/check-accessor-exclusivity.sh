#!/usr/bin/env bash
# The @Persisted accessors of a model in the app's module make no dynamic exclusivity check (issue 56:
# Persisted's subscript accesses its wrapper only in loads and stores the compiler proves disjoint).
# Checks the benchmarks' release build: no function of the Strata workloads that read and write
# objects (StrataBench, StrataModel, StrataQueries: public models, public properties) calls
# swift_beginAccess.
# usage: scripts/check-accessor-exclusivity.sh PATH/TO/strata-compare
set -euo pipefail
binary="${1:?usage: $0 strata-compare}"
command -v objdump >/dev/null 2>&1 || { apt-get update && apt-get install -y binutils; }
checked=$(objdump -d "$binary" | awk '/^[0-9a-f]+ <.*>:$/ { name = $2 } /call.*<swift_beginAccess/ { print name }' \
    | tr -d '<>:' | swift demangle --simplified | grep -E 'Strata(Bench|Model|Queries)\.' || true)
if [ -n "$checked" ]; then
    echo "Dynamic exclusivity checks in the Strata workloads' accessors (Persisted's subscript):" >&2
    echo "$checked" | sort | uniq -c >&2
    exit 1
fi
echo "check-accessor-exclusivity: no swift_beginAccess call in the Strata workloads' functions"

#!/usr/bin/env bash
# Measures the regression gate itself, on every benchmark the gate reads (the quick suite, as
# scripts/gate.sh runs it; a FILTER narrows it, for a quicker look):
#   1. N gate runs on unchanged code against a fresh baseline: every one must pass (exit 0 or 4);
#   2. a 2x slowdown of the tracked read must fail it (exit 2), every time: it is
#      caught by lockfree's instructions per operation (callgrind), which repeat exactly;
#   3. one extra allocation per evaluated scope must fail it (exit 2);
#   4. a changed invalidation count must fail it (exit 2, or 1 where the count also differs from the
#      benchmark's own declared counts, which fails that benchmark outright).
# The injections never touch the library's sources. The slowed read is a patch applied to a
# scratch copy of the checkout (.build-selfcheck-src: `trackAccess`, which the lockfree models'
# @TrackedModel accessors call, records each read twice), built there; the other two are
# compile-time flags of the benchmark's own contender code (BENCH_SELFCHECK_*, see
# Benchmarks/Workloads/Contenders/FaultInjections.swift), built in their own scratch folder. Each
# such build is named by its flag (BENCH_SELFCHECK_SLOW_TRACKED_READ for the patched copy): it
# warns loudly, records its faults in the results' metadata, and check refuses its results as a
# baseline. The slowed build is checked
# SLOW_RUNS times (default 1). About 5 minutes a gate run on 2 cores: the defaults (N=2) take about
# half an hour. Usage: [SLOW_RUNS=K] scripts/gate-selfcheck.sh [N] [FILTER]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2}
selection=()
[ -n "${2:-}" ] && selection=(--filter "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build -c release --product bench >/dev/null || { echo "build failed"; exit 1; }
bench="$(swift build -c release --show-bin-path)/bench"

"$bench" run --quick "${selection[@]}" --output "$work/base" >/dev/null 2>&1 || { echo "baseline run failed"; exit 1; }
baseline="$work/base/results.json"

fails=0
passes=0
for i in $(seq 1 "$runs"); do
    "$bench" check --baseline "$baseline" --quick "${selection[@]}" --output "$work/check" >"$work/out" 2>&1
    rc=$?
    if [ $rc = 0 ] || [ $rc = 4 ]; then passes=$((passes + 1)); else fails=$((fails + 1)); fi
    echo "unchanged code, gate run $i: exit $rc"
    [ $rc = 0 ] || [ $rc = 4 ] || grep -E '^\| regression|^FAILED|^bench:' "$work/out" | cut -c1-200
done
echo "unchanged code: $passes of $runs passed"

injected_fails=0
slow_runs=${SLOW_RUNS:-1}
flags=()
for _ in $(seq 1 "$slow_runs"); do flags+=(BENCH_SELFCHECK_SLOW_TRACKED_READ); done
flags+=(BENCH_SELFCHECK_EXTRA_ALLOCATION BENCH_SELFCHECK_EXTRA_NOTIFICATION)
# The scratch copy with the slowed read: the checkout's files (tracked, and untracked ones git
# does not ignore), `trackAccess` patched to record each read twice.
copy=.build-selfcheck-src
access=Sources/LockFreeObservation/Design/Object+Access.swift
mkdir -p "$copy"
find "$copy" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard \
    | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$copy" \
    || { echo "cannot copy the checkout to $copy"; exit 1; }
perl -0 -i -pe 's/(public final func trackAccess\(_ property: Int\) \{\n)/$1        _recordRead(property)\n/' "$copy/$access"
if [ "$(grep -c '_recordRead(property)' "$copy/$access")" != "$(($(grep -c '_recordRead(property)' "$access") + 1))" ]; then
    echo "the slowed-read patch no longer applies to $access"
    exit 1
fi

for flag in "${flags[@]}"; do
    if [ "$flag" = BENCH_SELFCHECK_SLOW_TRACKED_READ ]; then
        (cd "$copy" && swift build -c release --product bench -Xswiftc "-D$flag" >/dev/null) \
            || { echo "$flag: build failed"; exit 1; }
        injected="$(cd "$copy" && swift build -c release --show-bin-path)/bench"
    else
        swift build -c release --product bench --scratch-path .build-selfcheck -Xswiftc "-D$flag" >/dev/null \
            || { echo "$flag: build failed"; exit 1; }
        injected="$(swift build -c release --scratch-path .build-selfcheck --show-bin-path)/bench"
    fi
    "$injected" check --baseline "$baseline" --quick "${selection[@]}" --output "$work/check" >"$work/out" 2>&1
    rc=$?
    echo "$flag: exit $rc ($(grep -c -E '^\| regression' "$work/out") regressions, $(grep -c '^FAILED' "$work/out") failed benchmarks)"
    grep -E -m 5 '^\| regression|^FAILED' "$work/out" | cut -c1-200
    # A changed count may also fail the benchmark's own declared counts (exit 1); the others must
    # be regressions (exit 2).
    if [ "$flag" = BENCH_SELFCHECK_EXTRA_NOTIFICATION ]; then [ $rc = 2 ] || [ $rc = 1 ]; else [ $rc = 2 ]; fi \
        || injected_fails=$((injected_fails + 1))
done

echo "summary: unchanged $passes/$runs passed; injected regressions missed: $injected_fails of ${#flags[@]}"
[ $passes = "$runs" ] && [ $injected_fails = 0 ]
